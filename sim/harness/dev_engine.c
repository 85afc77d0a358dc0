/* dev_engine.c — the device engine factory (dev_engine.h): the one place the
 * engine kind is looked at. */
#include "dev_engine.h"

#include <stddef.h>

extern const dev_engine_ops_t dev_engine_rtl;   /* sim/harness/core.c over rtl/hca_core.sv */
extern const dev_engine_ops_t dev_engine_model; /* sim/harness/core.c over model/hca_core.c */
extern const dev_engine_ops_t dev_engine_lockstep; /* sim/harness/core.c over both, compared */

const dev_engine_ops_t *dev_engine_get(dev_engine_kind_t kind)
{
    switch (kind) {
    case DEV_ENGINE_RTL: return &dev_engine_rtl;
    case DEV_ENGINE_MODEL: return &dev_engine_model;
    case DEV_ENGINE_LOCKSTEP: return &dev_engine_lockstep;
    default: return NULL;
    }
}

const char *dev_engine_name(dev_engine_kind_t kind)
{
    const dev_engine_ops_t *ops = dev_engine_get(kind);
    return ops ? ops->name : "?";
}
