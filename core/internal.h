/* Transitional: the headers internal.h was split into, for branches
 * written before the split.  Nothing in the tree includes it; include the
 * headers a file uses instead.  To be deleted. */
#ifndef STRATA_INTERNAL_H
#define STRATA_INTERNAL_H

#include "base.h"
#include "alloc.h"
#include "ctx.h"
#include "curve.h"
#include "mesh.h"
#include "readfile.h"
#include "result.h"
#include "topology.h"
#include "../simd/functable.h"

#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>

#endif
