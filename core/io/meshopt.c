/* Buffer-view streams of the glTF extension EXT_meshopt_compression,
 * encoded with meshoptimizer's codecs (core/io/glb.c lays them out).
 *
 * Vertex data uses mode ATTRIBUTES (meshopt_encodeVertexBuffer, bitstream
 * version 0: header byte 0xa0, the only one the extension defines).
 * Indices use mode INDICES (meshopt_encodeIndexSequence, version 1: header
 * 0xd1), not TRIANGLES: the triangle codec may rotate a triangle's
 * corners (the winding is kept, the bytes are not), and a compressed file
 * must decode to exactly the indices of the uncompressed one.  Both
 * encoders are pure functions of their input, so the streams do not
 * depend on threads. */
#include "config.h"

#include "base/alloc.h"
#include "io/meshopt.h"

#include <string.h>

#ifdef HAVE_MESHOPTIMIZER
#include <meshoptimizer.h>
#include <pthread.h>
#endif

int strata__meshopt_supported(void)
{
#ifdef HAVE_MESHOPTIMIZER
    return 1;
#else
    return 0;
#endif
}

#ifndef HAVE_MESHOPTIMIZER

strata_status strata__meshopt_attributes(const strata_allocator *al, const unsigned char *src,
                                         uint64_t n, uint32_t stride, unsigned char **out,
                                         uint64_t *size)
{
    (void)al, (void)src, (void)n, (void)stride, (void)size;
    *out = NULL;
    return STRATA_ERR_UNSUPPORTED;
}

strata_status strata__meshopt_indices(const strata_allocator *al, const uint32_t *a, uint64_t na,
                                      const uint32_t *b, uint64_t nb, uint32_t nverts,
                                      unsigned char **out, uint64_t *size)
{
    (void)al, (void)a, (void)na, (void)b, (void)nb, (void)nverts, (void)size;
    *out = NULL;
    return STRATA_ERR_UNSUPPORTED;
}

#else

#define ATTRIBUTES_HEADER 0xa0
#define INDICES_HEADER 0xd1

/* The encoders' format versions are process-wide settings of the library;
 * set once, to the versions the extension specifies (newer meshoptimizer
 * releases may default to others). */
static pthread_once_t versions_once = PTHREAD_ONCE_INIT;
static void set_versions(void)
{
    meshopt_encodeVertexVersion(0);
    meshopt_encodeIndexVersion(1);
}

strata_status strata__meshopt_attributes(const strata_allocator *al, const unsigned char *src,
                                         uint64_t n, uint32_t stride, unsigned char **out,
                                         uint64_t *size)
{
    *out = NULL;
    if (stride == 0 || stride % 4 || stride > 256 || n > SIZE_MAX / stride)
        return STRATA_ERR_INVALID_ARG;
    pthread_once(&versions_once, set_versions);
    const size_t bound = meshopt_encodeVertexBufferBound((size_t)n, stride);
    unsigned char *buf = strata__alloc(al, bound);
    if (!buf)
        return STRATA_ERR_NOMEM;
    const size_t len = meshopt_encodeVertexBuffer(buf, bound, src, (size_t)n, stride);
    if (len == 0 || buf[0] != ATTRIBUTES_HEADER) {
        strata__free(al, buf);
        return STRATA_ERR_UNSUPPORTED; /* a library whose codec is not the extension's */
    }
    *out = buf;
    *size = len;
    return STRATA_OK;
}

strata_status strata__meshopt_indices(const strata_allocator *al, const uint32_t *a, uint64_t na,
                                      const uint32_t *b, uint64_t nb, uint32_t nverts,
                                      unsigned char **out, uint64_t *size)
{
    *out = NULL;
    const uint64_t n = na + nb;
    if (n > SIZE_MAX / 4)
        return STRATA_ERR_INVALID_ARG;
    pthread_once(&versions_once, set_versions);
    /* the two runs of a primitive are one stream: joined when both exist */
    const uint32_t *ix = nb == 0 ? a : na == 0 ? b : NULL;
    uint32_t *joined = NULL;
    if (!ix) {
        joined = strata__alloc_array(al, (size_t)n, sizeof *joined);
        if (!joined)
            return STRATA_ERR_NOMEM;
        memcpy(joined, a, (size_t)na * 4);
        memcpy(joined + na, b, (size_t)nb * 4);
        ix = joined;
    }
    const size_t bound = meshopt_encodeIndexSequenceBound((size_t)n, nverts);
    unsigned char *buf = strata__alloc(al, bound);
    if (!buf) {
        strata__free(al, joined);
        return STRATA_ERR_NOMEM;
    }
    const size_t len = meshopt_encodeIndexSequence(buf, bound, ix, (size_t)n);
    strata__free(al, joined);
    if (len == 0 || buf[0] != INDICES_HEADER) {
        strata__free(al, buf);
        return STRATA_ERR_UNSUPPORTED;
    }
    *out = buf;
    *size = len;
    return STRATA_OK;
}

#endif
