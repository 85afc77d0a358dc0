/* pgo_no_rtl.c — linked only into the trainer of the model's profile-guided
 * build (model/model.mk MODEL_PGO), never into libhcasim: that trainer runs
 * the model engine alone and is linked without the Verilated RTL (whose own
 * profile-guided build links libhcasim, so the RTL cannot be a prerequisite
 * of the model's objects). These stand in for the RTL engines' ops: each
 * refuses to create an engine (-ENOTSUP), so a trainer that asked for the
 * RTL fails with an error, not a crash. */
#include <errno.h>

#include "core_engine.h"
#include "xu_engine.h"

static int no_rtl_create(void **eng, const xu_params_t *params)
{
    (void)params;
    if (eng)
        *eng = NULL;
    return -ENOTSUP;
}

const core_engine_ops_t core_rtl_ops = {.name = "rtl (not in the model's profile trainer)", .create = no_rtl_create};
const xu_engine_ops_t xu_rtl_ops = {.name = "rtl (not in the model's profile trainer)", .create = no_rtl_create};
