/* What `strata bench` makes of its own measurement lines (apps/bench.c
 * prints them: a tag word, then key=value words): a summary a person
 * reads, the same lines as one JSON document, an SVG chart of the
 * scaling.  Every figure here is one of the lines' own or, for speedups,
 * the ratio the `scaling` lines print (seconds at the fewest threads over
 * seconds at N). */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 128
#define MAX_THREADS 16

typedef struct line {
    const char *tag;
    int n;
    const char *key[MAX_WORDS], *val[MAX_WORDS];
} line;

typedef struct lines {
    line *v;
    size_t n;
    char *buf; /* the text, cut in place */
} lines;

/* Cuts text into lines of words; a word without '=' is kept with an empty
 * value.  Returns 0 when out of memory. */
static int parse(const char *text, lines *L)
{
    memset(L, 0, sizeof *L);
    size_t cap = 1;
    for (const char *c = text; *c; c++)
        cap += *c == '\n';
    L->buf = strdup(text);
    L->v = calloc(cap, sizeof *L->v);
    if (!L->buf || !L->v)
        return 0;
    char *save = NULL;
    for (char *t = strtok_r(L->buf, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
        line *l = &L->v[L->n];
        char *ws = NULL;
        l->tag = strtok_r(t, " ", &ws);
        if (!l->tag)
            continue;
        for (char *w; l->n < MAX_WORDS && (w = strtok_r(NULL, " ", &ws));) {
            char *eq = strchr(w, '=');
            if (eq)
                *eq = '\0';
            l->key[l->n] = w;
            l->val[l->n++] = eq ? eq + 1 : "";
        }
        L->n++;
    }
    return 1;
}

static void lines_free(lines *L)
{
    free(L->v);
    free(L->buf);
}

static const char *get(const line *l, const char *key)
{
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->key[i], key))
            return l->val[i];
    return NULL;
}

static double num(const line *l, const char *key)
{
    const char *v = get(l, key);
    return v ? strtod(v, NULL) : NAN;
}

static int is(const line *l, const char *tag)
{
    return !strcmp(l->tag, tag);
}

/* ------------------------------------------------------------ rows */

/* A measurement's case: its words before seconds=, less the ones every
 * line has (stage, isa, threads, size, busy) and figures of the input. */
static void case_of(const line *l, char *out, size_t cap)
{
    static const char *const skip[] = {"stage", "isa",        "threads", "size",
                                       "busy",  "multiband_pct", "tris",  "out_verts"};
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < l->n && strcmp(l->key[i], "seconds"); i++) {
        size_t k = 0;
        while (k < sizeof skip / sizeof *skip && strcmp(skip[k], l->key[i]))
            k++;
        if (k < sizeof skip / sizeof *skip)
            continue;
        const int w = snprintf(out + len, cap - len, "%s%s=%s", len ? " " : "", l->key[i],
                               l->val[i]);
        if (w < 0 || (size_t)w >= cap - len)
            break;
        len += (size_t)w;
    }
}

/* The line's throughput: its first *_per_s figure (unit "Mtri/s" from
 * mtri_per_s), else ns_per_item, else its seconds. */
static double throughput(const line *l, char *unit, size_t cap)
{
    for (int i = 0; i < l->n; i++) {
        const size_t k = strlen(l->key[i]);
        if (k > 6 && !strcmp(l->key[i] + k - 6, "_per_s") && strncmp(l->key[i], "out_", 4)) {
            const char *u = l->key[i]; /* mtri_per_s: Mtri/s, gb_per_s: GB/s */
            const int bytes = k == 8 && u[1] == 'b';
            snprintf(unit, cap, "%c%.*s/s", u[0] == 'm' || u[0] == 'g' ? u[0] - 32 : u[0],
                     bytes ? 1 : (int)(k - 7), bytes ? "B" : u + 1);
            return strtod(l->val[i], NULL);
        }
    }
    if (get(l, "ns_per_item")) {
        snprintf(unit, cap, "ns/item");
        return num(l, "ns_per_item");
    }
    snprintf(unit, cap, "s");
    return num(l, "seconds");
}

typedef struct row {
    char stage[32], what[160], isa[16], unit[16];
    double value[MAX_THREADS], seconds[MAX_THREADS], bw_share[MAX_THREADS];
} row;

typedef struct table {
    int threads[MAX_THREADS], nthreads;
    row *rows;
    size_t nrows;
    const char *isa_default;
} table;

static int thread_index(table *t, int threads)
{
    for (int i = 0; i < t->nthreads; i++)
        if (t->threads[i] == threads)
            return i;
    if (t->nthreads == MAX_THREADS)
        return -1;
    int i = t->nthreads++;
    for (; i > 0 && t->threads[i - 1] > threads; i--) /* kept in order */
        t->threads[i] = t->threads[i - 1];
    for (size_t r = 0; r < t->nrows; r++) /* columns after it move too */
        for (int c = t->nthreads - 1; c > i; c--) {
            t->rows[r].value[c] = t->rows[r].value[c - 1];
            t->rows[r].seconds[c] = t->rows[r].seconds[c - 1];
            t->rows[r].bw_share[c] = t->rows[r].bw_share[c - 1];
        }
    t->threads[i] = threads;
    for (size_t r = 0; r < t->nrows; r++)
        t->rows[r].value[i] = t->rows[r].seconds[i] = t->rows[r].bw_share[i] = NAN;
    return i;
}

static row *row_of(table *t, const line *l)
{
    char what[160];
    case_of(l, what, sizeof what);
    const char *stage = get(l, "stage"), *isa = get(l, "isa");
    for (size_t r = 0; r < t->nrows; r++)
        if (!strcmp(t->rows[r].stage, stage) && !strcmp(t->rows[r].what, what) &&
            !strcmp(t->rows[r].isa, isa))
            return &t->rows[r];
    row *w = &t->rows[t->nrows++];
    snprintf(w->stage, sizeof w->stage, "%s", stage);
    snprintf(w->what, sizeof w->what, "%s", what);
    snprintf(w->isa, sizeof w->isa, "%s", isa);
    for (int c = 0; c < MAX_THREADS; c++)
        w->value[c] = w->seconds[c] = w->bw_share[c] = NAN;
    return w;
}

/* Every bench line but the bandwidth's, one row a stage, case and ISA.
 * Returns 0 when out of memory. */
static int tabulate(const lines *L, table *t)
{
    memset(t, 0, sizeof *t);
    t->rows = calloc(L->n ? L->n : 1, sizeof *t->rows);
    if (!t->rows)
        return 0;
    for (size_t i = 0; i < L->n; i++) {
        const line *l = &L->v[i];
        if (is(l, "machine"))
            t->isa_default = get(l, "isa_default");
        if (!is(l, "bench") || !get(l, "stage") || !get(l, "isa") ||
            !strcmp(get(l, "stage"), "bandwidth") || isnan(num(l, "seconds")))
            continue;
        const int c = thread_index(t, (int)num(l, "threads"));
        if (c < 0)
            continue;
        row *w = row_of(t, l);
        w->value[c] = throughput(l, w->unit, sizeof w->unit);
        w->seconds[c] = num(l, "seconds");
        w->bw_share[c] = num(l, "bw_share");
    }
    return 1;
}

/* Seconds at the fewest threads measured over seconds at column c. */
static double speedup(const table *t, const row *w, int c)
{
    for (int b = 0; b < t->nthreads; b++)
        if (!isnan(w->seconds[b]))
            return b < c && w->seconds[c] > 0 ? w->seconds[b] / w->seconds[c] : NAN;
    return NAN;
}

/* ------------------------------------------------------------ summary */

static void print_head(const lines *L, FILE *out)
{
    for (size_t i = 0; i < L->n; i++) {
        const line *l = &L->v[i];
        if (is(l, "machine"))
            fprintf(out, "strata bench %s: %s, %s online CPUs, default ISA %s, %s, load %s%s\n",
                    get(l, "version"), get(l, "cpu"), get(l, "online_cpus"),
                    get(l, "isa_default"), get(l, "compiler"), get(l, "load1"),
                    num(l, "quick") > 0 ? " (--quick sizes)" : "");
        else if (is(l, "topology") && get(l, "cores"))
            fprintf(out, "topology (%s): %s package(s), %s NUMA node(s), %s cores, %s PUs\n",
                    get(l, "source"), get(l, "packages"), get(l, "numa_nodes"), get(l, "cores"),
                    get(l, "pus"));
        else if (is(l, "bench") && get(l, "stage") && !strcmp(get(l, "stage"), "bandwidth"))
            fprintf(out, "memory %s bandwidth, %s thread(s): %s GB/s\n", get(l, "kind"),
                    get(l, "threads"), get(l, "gb_per_s"));
    }
}

static void print_rows(const table *t, FILE *out)
{
    fprintf(out, "\n%-10s %-8s %-10s", "stage", "isa", "unit");
    for (int c = 0; c < t->nthreads; c++)
        fprintf(out, " %8d thr", t->threads[c]);
    fprintf(out, " %8s %8s  case\n", "speedup", "bw_share");
    for (size_t r = 0; r < t->nrows; r++) {
        const row *w = &t->rows[r];
        fprintf(out, "%-10s %-8s %-10s", w->stage, w->isa, w->unit);
        int last = -1;
        for (int c = 0; c < t->nthreads; c++) {
            if (isnan(w->value[c]))
                fprintf(out, " %12s", "-");
            else
                fprintf(out, " %12.4g", w->value[c]);
            last = isnan(w->seconds[c]) ? last : c;
        }
        const double s = last < 0 ? NAN : speedup(t, w, last);
        const double b = last < 0 ? NAN : w->bw_share[last];
        if (isnan(s))
            fprintf(out, " %8s", "-");
        else
            fprintf(out, " %7.2fx", s);
        if (isnan(b))
            fprintf(out, " %8s", "-");
        else
            fprintf(out, " %8.3f", b);
        fprintf(out, "  %s\n", w->what);
    }
}

/* The planet lines' memory: peak resident set against input and output,
 * and the page faults of each step (first touches of fresh memory). */
static void print_memory(const lines *L, FILE *out)
{
    static const char *const steps[] = {"icosphere", "displace", "levels", "slice", "write"};
    for (size_t i = 0; i < L->n; i++) {
        const line *l = &L->v[i];
        if (is(l, "bench") && get(l, "stage") && !strcmp(get(l, "stage"), "planet")) {
            fprintf(out, "planet level %s, %s, %s thread(s): peak RSS %s MiB (%sx input + "
                         "output); page faults",
                    get(l, "level"), get(l, "isa"), get(l, "threads"), get(l, "peak_rss_mb"),
                    get(l, "mem_ratio"));
            for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
                char key[48];
                snprintf(key, sizeof key, "%s_minflt", steps[k]);
                const char *v = get(l, key);
                fprintf(out, " %s %s", steps[k], v ? v : "-");
            }
            fputc('\n', out);
        } else if (is(l, "ratio") || is(l, "memory")) {
            fputs(l->tag, out);
            for (int k = 0; k < l->n; k++)
                fprintf(out, " %s=%s", l->key[k], l->val[k]);
            fputc('\n', out);
        }
    }
}

void bench_summary(const char *text, FILE *out)
{
    lines L;
    table t = {0};
    if (!parse(text, &L) || !tabulate(&L, &t)) {
        fputs("strata bench: out of memory for the summary; the lines:\n", out);
        fputs(text, out);
    } else {
        print_head(&L, out);
        print_rows(&t, out);
        fputc('\n', out);
        print_memory(&L, out);
    }
    free(t.rows);
    lines_free(&L);
}

/* ------------------------------------------------------------ JSON */

/* A JSON number as RFC 8259 writes one (so "1e5" is, "inf", "0x1", "01"
 * and "1." are not). */
static int json_number(const char *s)
{
    if (*s == '-')
        s++;
    if (*s == '0')
        s++;
    else if (*s >= '1' && *s <= '9')
        while (*s >= '0' && *s <= '9')
            s++;
    else
        return 0;
    if (*s == '.') {
        if (!(*++s >= '0' && *s <= '9'))
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s += s[1] == '+' || s[1] == '-';
        if (!(*++s >= '0' && *s <= '9'))
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

static void json_string(const char *s, FILE *out)
{
    fputc('"', out);
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

void bench_json(const char *text, FILE *out)
{
    lines L;
    if (!parse(text, &L)) {
        lines_free(&L);
        fputs("{\"error\": \"out of memory\"}\n", out);
        return;
    }
    fputs("{\"strata_bench\": [", out);
    for (size_t i = 0; i < L.n; i++) {
        const line *l = &L.v[i];
        fputs(i ? ",\n  {\"tag\": " : "\n  {\"tag\": ", out);
        json_string(l->tag, out);
        for (int k = 0; k < l->n; k++) {
            fputs(", ", out);
            json_string(l->key[k], out);
            fputs(": ", out);
            if (json_number(l->val[k]))
                fputs(l->val[k], out);
            else
                json_string(l->val[k], out);
        }
        fputc('}', out);
    }
    fputs("\n]}\n", out);
    lines_free(&L);
}

/* ------------------------------------------------------------ chart */

static void xml_text(const char *s, FILE *out)
{
    for (; *s; s++)
        if (*s == '<')
            fputs("&lt;", out);
        else if (*s == '>')
            fputs("&gt;", out);
        else if (*s == '&')
            fputs("&amp;", out);
        else if (*s == '"')
            fputs("&quot;", out);
        else
            fputc(*s, out);
}

enum { W = 760, H = 420, X0 = 60, Y0 = 30, PW = 440, PH = 330 };

static void chart_axes(const table *t, double ymax, FILE *out)
{
    const int tmax = t->threads[t->nthreads - 1];
    fprintf(out, "<rect x='%d' y='%d' width='%d' height='%d' fill='none' stroke='#888'/>\n",
            X0, Y0, PW, PH);
    for (int c = 0; c < t->nthreads; c++) {
        const double x = X0 + PW * (double)t->threads[c] / tmax;
        fprintf(out, "<text x='%.1f' y='%d' text-anchor='middle'>%d</text>\n", x, Y0 + PH + 16,
                t->threads[c]);
    }
    for (int k = 0; k <= 4; k++)
        fprintf(out, "<text x='%d' y='%.1f' text-anchor='end'>%.2g</text>\n", X0 - 6,
                Y0 + PH - PH * k / 4.0 + 4, ymax * k / 4.0);
    fprintf(out, "<text x='%d' y='%d' text-anchor='middle'>threads</text>\n", X0 + PW / 2,
            Y0 + PH + 34);
    fprintf(out, "<text x='14' y='%d' transform='rotate(-90 14 %d)' text-anchor='middle'>"
                 "speedup over %d thread(s)</text>\n",
            Y0 + PH / 2, Y0 + PH / 2, t->threads[0]);
    /* ideal: speedup = threads / fewest threads */
    fprintf(out, "<line class='ideal' x1='%.1f' y1='%.1f' x2='%d' y2='%.1f' stroke='#aaa' "
                 "stroke-dasharray='4 3'/>\n",
            X0 + PW * (double)t->threads[0] / tmax, Y0 + PH - PH / ymax, X0 + PW,
            Y0 + PH - PH * ((double)tmax / t->threads[0]) / ymax);
}

/* One stage's polyline: its speedups in data-speedups, its label in the
 * legend at slot k. */
static void chart_row(const table *t, const row *w, int k, double ymax, FILE *out)
{
    static const char *const colour[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                         "#9467bd", "#8c564b", "#e377c2", "#17becf"};
    const char *col = colour[k % 8];
    const int tmax = t->threads[t->nthreads - 1];
    fprintf(out, "<polyline class='stage' fill='none' stroke='%s' stroke-width='2' "
                 "data-stage='",
            col);
    xml_text(w->stage, out);
    fputs("' data-case='", out);
    xml_text(w->what, out);
    fputs("' data-threads='", out);
    for (int c = 0, first = 1; c < t->nthreads; c++)
        if (!isnan(w->seconds[c]))
            fprintf(out, "%s%d", first ? "" : ",", t->threads[c]), first = 0;
    fputs("' data-speedups='", out);
    for (int c = 0, first = 1; c < t->nthreads; c++)
        if (!isnan(w->seconds[c])) {
            const double s = c == 0 || isnan(speedup(t, w, c)) ? 1.0 : speedup(t, w, c);
            fprintf(out, "%s%.4f", first ? "" : ",", s), first = 0;
        }
    fputs("' points='", out);
    for (int c = 0; c < t->nthreads; c++)
        if (!isnan(w->seconds[c])) {
            const double s = c == 0 || isnan(speedup(t, w, c)) ? 1.0 : speedup(t, w, c);
            fprintf(out, "%.1f,%.1f ", X0 + PW * (double)t->threads[c] / tmax,
                    Y0 + PH - PH * s / ymax);
        }
    fputs("'><title>", out);
    xml_text(w->stage, out);
    fputc(' ', out);
    xml_text(w->what, out);
    fputs("</title></polyline>\n", out);
    fprintf(out, "<rect x='%d' y='%d' width='12' height='3' fill='%s'/>\n", X0 + PW + 20,
            Y0 + 8 + 14 * k, col);
    fprintf(out, "<text x='%d' y='%d'>", X0 + PW + 38, Y0 + 13 + 14 * k);
    xml_text(w->stage, out);
    fputc(' ', out);
    xml_text(w->what, out);
    fputs("</text>\n", out);
}

/* The ISA the chart shows: the machine's default when it was measured,
 * else the first measured. */
static const char *chart_isa(const table *t)
{
    for (size_t r = 0; r < t->nrows; r++)
        if (t->isa_default && !strcmp(t->rows[r].isa, t->isa_default))
            return t->isa_default;
    return t->rows[0].isa;
}

void bench_chart(const char *text, FILE *out)
{
    lines L;
    table t = {0};
    const int ok = parse(text, &L) && tabulate(&L, &t);
    fprintf(out, "<?xml version='1.0' encoding='UTF-8'?>\n"
                 "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
                 "font-family='sans-serif' font-size='11'>\n",
            W + 200, H);
    if (!ok || t.nthreads == 0) {
        fputs("<text x='20' y='30'>no measurements</text>\n</svg>\n", out);
    } else {
        /* the rows at one ISA (the stacked baseline is scalar only, so its
         * own), the kernel lines left out */
        double ymax = (double)t.threads[t.nthreads - 1] / t.threads[0];
        for (size_t r = 0; r < t.nrows; r++)
            for (int c = 1; c < t.nthreads; c++)
                if (speedup(&t, &t.rows[r], c) > ymax)
                    ymax = speedup(&t, &t.rows[r], c);
        ymax = ceil(ymax * 2) / 2;
        fputs("<text x='60' y='18' font-size='13'>strata bench: speedup over thread counts"
              "</text>\n",
              out);
        chart_axes(&t, ymax, out);
        const char *isa = chart_isa(&t);
        int k = 0;
        for (size_t r = 0; r < t.nrows; r++) {
            const row *w = &t.rows[r];
            if (!strcmp(w->stage, "kernel") ||
                (strcmp(w->isa, isa) && strcmp(w->stage, "stacked")))
                continue;
            chart_row(&t, w, k++, ymax, out);
        }
        fputs("</svg>\n", out);
    }
    free(t.rows);
    lines_free(&L);
}
