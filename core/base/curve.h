/* Height curves (core/base/curve.c): what displacement needs to know of them. */
#ifndef STRATA_CURVE_H
#define STRATA_CURVE_H

#include "base.h"

#include <stdbool.h>

/* True when a curve maps every t to itself (points on the diagonal from
 * 0 to 1): displacement then skips it, leaving heights bit for bit. */
STRATA_HIDDEN bool strata__curve_is_identity(const strata_curve *c);

#endif
