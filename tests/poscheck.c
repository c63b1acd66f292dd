/* poscheck FILE...: weld the triangles of strata's binary PLY files
 * (little-endian, as strata writes them) and binary STL files by exact
 * position, all files together (a world's tiles: their welded union), and
 * print the figures of tests/poscheck.h on one line:
 *
 *   tris=N points=N collapsed=N repeated=N nonmanifold=N border=N
 *   inner_border=N pinches=N thin=N short_side=N min_alt_ulps=X
 *
 * Exit 0, or 1 on a file it cannot read.  A test tool, built by
 * `make check`. */
#include "poscheck.h"

#include <stdio.h>

typedef struct {
    float *x, *y, *z;
    uint32_t n, cap;
    uint32_t *idx;
    uint64_t ntris, tcap;
} soup;

static int grow(soup *s, uint32_t nv, uint64_t nt)
{
    if (s->n + (uint64_t)nv > s->cap) {
        uint32_t cap = s->cap ? s->cap : 1024;
        while (cap < s->n + (uint64_t)nv)
            cap *= 2;
        float *x = realloc(s->x, sizeof *x * cap), *y = realloc(s->y, sizeof *y * cap),
              *z = realloc(s->z, sizeof *z * cap);
        if (x)
            s->x = x;
        if (y)
            s->y = y;
        if (z)
            s->z = z;
        if (!x || !y || !z)
            return -1;
        s->cap = cap;
    }
    if (s->ntris + nt > s->tcap) {
        uint64_t cap = s->tcap ? s->tcap : 1024;
        while (cap < s->ntris + nt)
            cap *= 2;
        uint32_t *idx = realloc(s->idx, sizeof *idx * 3 * cap);
        if (!idx)
            return -1;
        s->idx = idx;
        s->tcap = cap;
    }
    return 0;
}

static int read_stl(FILE *f, soup *s)
{
    unsigned char head[84];
    if (fread(head, 1, 84, f) != 84)
        return -1;
    uint32_t nt;
    memcpy(&nt, head + 80, 4);
    if (grow(s, 3 * nt, nt))
        return -1;
    for (uint32_t t = 0; t < nt; t++) {
        unsigned char rec[50];
        float v[12];
        if (fread(rec, 1, 50, f) != 50)
            return -1;
        memcpy(v, rec, 48);
        for (int i = 0; i < 3; i++) {
            s->x[s->n] = v[3 + 3 * i], s->y[s->n] = v[4 + 3 * i], s->z[s->n] = v[5 + 3 * i];
            s->idx[3 * s->ntris + (uint64_t)i] = s->n++;
        }
        s->ntris++;
    }
    return 0;
}

/* strata's PLY: float x y z [nx ny nz], faces as uchar 3, uint ids, int
 * terrace, uchar wall. */
static int read_ply(FILE *f, soup *s)
{
    char line[256];
    unsigned long nv = 0;
    unsigned long long nf = 0;
    int nprops = 0, in_vertex = 0;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "element vertex %lu", &nv) == 1)
            in_vertex = 1;
        else if (sscanf(line, "element face %llu", &nf) == 1)
            in_vertex = 0;
        else if (in_vertex && strncmp(line, "property float", 14) == 0)
            nprops++;
        else if (strncmp(line, "end_header", 10) == 0)
            break;
    }
    if (nprops < 3 || grow(s, (uint32_t)nv, nf))
        return -1;
    const uint32_t base = s->n;
    for (unsigned long i = 0; i < nv; i++) {
        float v[6];
        if (fread(v, sizeof(float), (size_t)nprops, f) != (size_t)nprops)
            return -1;
        s->x[s->n] = v[0], s->y[s->n] = v[1], s->z[s->n] = v[2];
        s->n++;
    }
    for (unsigned long long t = 0; t < nf; t++) {
        unsigned char rec[18];
        uint32_t ids[3];
        if (fread(rec, 1, 18, f) != 18 || rec[0] != 3)
            return -1;
        memcpy(ids, rec + 1, 12);
        for (int i = 0; i < 3; i++) {
            if (ids[i] >= nv)
                return -1;
            s->idx[3 * s->ntris + (uint64_t)i] = base + ids[i];
        }
        s->ntris++;
    }
    return 0;
}

int main(int argc, char **argv)
{
    soup s = {0};
    if (argc < 2) {
        fprintf(stderr, "usage: poscheck FILE.ply|FILE.stl...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        const size_t len = strlen(argv[i]);
        const int stl = len > 4 && strcmp(argv[i] + len - 4, ".stl") == 0;
        if (!f || (stl ? read_stl(f, &s) : read_ply(f, &s))) {
            fprintf(stderr, "poscheck: cannot read '%s'\n", argv[i]);
            return 1;
        }
        fclose(f);
    }
    poscheck p;
    if (poscheck_run(s.x, s.y, s.z, s.n, s.idx, s.ntris, &p)) {
        fprintf(stderr, "poscheck: out of memory\n");
        return 1;
    }
    printf("tris=%llu points=%llu collapsed=%llu repeated=%llu nonmanifold=%llu border=%llu "
           "inner_border=%llu pinches=%llu thin=%llu short_side=%llu min_alt_ulps=%.3g\n",
           (unsigned long long)p.ntris, (unsigned long long)p.npoints,
           (unsigned long long)p.collapsed, (unsigned long long)p.repeated,
           (unsigned long long)p.nonmanifold, (unsigned long long)p.border,
           (unsigned long long)p.inner_border, (unsigned long long)p.pinches,
           (unsigned long long)p.thin, (unsigned long long)p.short_side, p.min_alt_ulps);
    free(s.x), free(s.y), free(s.z), free(s.idx);
    return 0;
}
