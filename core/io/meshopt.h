/* EXT_meshopt_compression streams (core/io/meshopt.c), for compressed .glb
 * files (core/io/glb.c). */
#ifndef STRATA_MESHOPT_H
#define STRATA_MESHOPT_H

#include "base.h"

#include <stdint.h>

/* 1 when the library was built with meshoptimizer, else 0. */
STRATA_HIDDEN int strata__meshopt_supported(void);

/* Mode ATTRIBUTES stream of n elements of `stride` bytes (a multiple of
 * 4, at most 256) at src, in the file's byte order: *out gets a buffer
 * from al holding it (at most meshopt_encodeVertexBufferBound bytes, the
 * caller frees it), *size its length.  STRATA_ERR_UNSUPPORTED without
 * meshoptimizer, STRATA_ERR_NOMEM; *out is NULL on failure. */
STRATA_HIDDEN strata_status strata__meshopt_attributes(const strata_allocator *al,
                                                       const unsigned char *src, uint64_t n,
                                                       uint32_t stride, unsigned char **out,
                                                       uint64_t *size);

/* Mode INDICES stream of the indices a[0..na) followed by b[0..nb), all
 * below nverts; decoded with a byteStride of 2 or 4 (the values must fit).
 * *out and *size as above. */
STRATA_HIDDEN strata_status strata__meshopt_indices(const strata_allocator *al, const uint32_t *a,
                                                    uint64_t na, const uint32_t *b, uint64_t nb,
                                                    uint32_t nverts, unsigned char **out,
                                                    uint64_t *size);

#endif
