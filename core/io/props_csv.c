/* strata_props_write_csv: the props of a result as CSV, one instance a
 * line in their order (core/edit/props.c scatters them). */
#define _POSIX_C_SOURCE 200809L
#include "base/ctx.h"
#include "base/output.h"
#include "edit/props.h"
#include "io/write.h"

#include <errno.h>
#include <stdio.h>

strata_status strata_props_write_csv(strata_ctx *ctx, const strata_props *p, const char *path)
{
    if (!ctx || !p || !path || !*path)
        return STRATA_ERR_INVALID_ARG;
    const int saved_errno = errno;
    strata_status st = strata__progress(ctx, "write", 0.0);
    if (st != STRATA_OK)
        return st;
    strata_out o = STRATA_OUT_INIT(ctx);
    if (strata__out_open(&o, path, ctx) == 0) {
        strata__out_str(&o, "x,y,z,up_x,up_y,up_z,yaw,scale,kind,terrace\n");
        for (uint64_t i = 0; i < p->count; i++) {
            if ((i & 4095) == 0 && strata__out_progress(&o, i, p->count))
                break;
            char line[256];
            /* %.9g of a float reads back the same float; the library never
             * sets a locale, so the decimal point is '.' */
            const int n =
                snprintf(line, sizeof line, "%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%s,%u\n",
                         (double)p->x[i], (double)p->y[i], (double)p->z[i], (double)p->ux[i],
                         (double)p->uy[i], (double)p->uz[i], (double)p->yaw[i],
                         (double)p->scale[i], p->kind[i] == STRATA_PROP_ROCK ? "rock" : "tree",
                         p->terrace[i]);
            strata__out_bytes(&o, line, (size_t)n);
        }
        strata__out_finish(&o);
    }
    const char *const paths[1] = {path};
    return strata__write_finish(ctx, &o, paths, 1, saved_errno);
}
