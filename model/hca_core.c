/* hca_core.c — the C model of rtl/hca_core.sv (being assembled). */
#include <errno.h>
#include <stdlib.h>

#include "core_engine.h"

static int cm_create(void **eng, const xu_params_t *params)
{
    (void)params;
    *eng = NULL;
    return -ENOTSUP;
}
static void cm_destroy(void *eng) { (void)eng; }
static void cm_reset(void *eng) { (void)eng; }
static void cm_cycle(void *eng, core_pins_t *p, uint64_t now) { (void)eng, (void)p, (void)now; }
static int cm_trace_open(void *eng, const char *path) { (void)eng, (void)path; return -ENOTSUP; }
static void cm_trace_close(void *eng) { (void)eng; }

const core_engine_ops_t core_model_ops = {
    .name = "model",
    .create = cm_create,
    .destroy = cm_destroy,
    .reset = cm_reset,
    .cycle = cm_cycle,
    .trace_open = cm_trace_open,
    .trace_close = cm_trace_close,
};
