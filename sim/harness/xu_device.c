/* xu_device.c — the model device engine as it stands: the C model of the
 * translation unit (model/xu_model.c in its harness, xu.h) and nothing of the
 * WQE engine, behind dev_engine.h.
 *
 * What it serves and refuses, so the firmware and the driver report it
 * honestly:
 *   - the fwp block: the translation unit's firmware port (memory keys work);
 *   - the ctx block: staging registers, and every command completes at once
 *     with BAD_OP (the firmware answers the queue commands unsupported);
 *   - no event queue: an access to regs evt is refused (the firmware's probe
 *     faults and it claims no memory-management extension);
 *   - doorbells: -EOPNOTSUPP; no DMA, no packets.
 * The whole-device model replaces this file behind the same interface.
 */
#include "dev_engine.h"
#include "xu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FWP_OFF (HCA_FWP_BASE - HCA_DEVREG_BASE)
#define CTX_OFF (HCA_FW_CTX_BASE - HCA_DEVREG_BASE)

typedef struct xu_device {
    xu_t *xu;
    /* the context port's refusal: staging registers and a status */
    uint32_t ctx_data[HCA_CTX_DATA_COUNT];
    uint32_t ctx_status;
    int ctx_answered; /* a ctx access was posted and answers at the next poll */
    uint32_t ctx_rdata;
} xu_device_t;

static int xd_create(void **eng, const dev_engine_config_t *cfg, const dev_engine_env_t *env)
{
    (void)env; /* no DMA, no packets: nothing to report */
    if (!eng)
        return -EINVAL;
    *eng = NULL;
    xu_device_t *x = calloc(1, sizeof *x);
    if (!x)
        return -ENOMEM;
    const xu_params_t *tables = cfg && cfg->tables.mpt_entries ? &cfg->tables : NULL;
    int rc = xu_create(&x->xu, XU_ENGINE_MODEL, tables);
    if (rc) {
        free(x);
        return rc;
    }
    *eng = x;
    return 0;
}

static void xd_destroy(void *eng)
{
    xu_device_t *x = eng;
    if (!x)
        return;
    xu_destroy(x->xu);
    free(x);
}

static void xd_step(void *eng) { xu_step(((xu_device_t *)eng)->xu, 1); }

static uint64_t xd_quiet_until(const void *eng) { return xu_cycle(((const xu_device_t *)eng)->xu) + 1; }

static void xd_skip(void *eng, uint64_t to) { (void)eng, (void)to; }

static int xd_doorbell(void *eng, uint32_t off, uint32_t val)
{
    (void)eng, (void)val;
    return off == HCA_DB_SQ || off == HCA_DB_RQ || off == HCA_DB_CQ ? -EOPNOTSUPP : -EINVAL;
}

/* The ctx block: registers answer in the access's own cycle. */
static int ctx_access(xu_device_t *x, int write, uint32_t off, uint32_t wdata)
{
    uint32_t rd = 0;
    if (off < HCA_CTX_CMD) {
        if (write)
            x->ctx_data[off / 4] = wdata;
        else
            rd = x->ctx_data[off / 4];
    } else if (off == HCA_CTX_CMD) {
        if (write)
            x->ctx_status = HCA_CTX_STATUS_RESULT_PUT(HCA_FWP_RESULT_BAD_OP);
    } else if (off == HCA_CTX_STATUS) {
        rd = write ? 0 : x->ctx_status;
    } else {
        return -EINVAL;
    }
    x->ctx_answered = 1;
    x->ctx_rdata = rd;
    return 0;
}

static int xd_fw_post(void *eng, int write, uint32_t off, uint32_t wdata)
{
    xu_device_t *x = eng;
    if (off >= CTX_OFF && off < CTX_OFF + HCA_CTX_STATUS + 4)
        return x->ctx_answered ? -EBUSY : ctx_access(x, write, off - CTX_OFF, wdata);
    if (off - FWP_OFF > HCA_FWP_SIZES) /* wraps below the block */
        return -EINVAL; /* the event queue and anything else: no such register */
    return xu_fw_post(x->xu, write, off - FWP_OFF, wdata);
}

static int xd_fw_poll(void *eng, uint32_t *rdata)
{
    xu_device_t *x = eng;
    if (x->ctx_answered) {
        x->ctx_answered = 0;
        if (rdata)
            *rdata = x->ctx_rdata;
        return 1;
    }
    return xu_fw_poll(x->xu, rdata);
}

/* No event queue: the line never rises. */
static const uint8_t *xd_fw_irq_pin(void *eng)
{
    static const uint8_t low = 0;
    return (void)eng, &low;
}

static int xd_probe_submit(void *eng, const xu_req_t *req) { return xu_submit(((xu_device_t *)eng)->xu, req); }
static size_t xd_probe_pending(const void *eng) { return xu_pending(((const xu_device_t *)eng)->xu); }
static int xd_probe_collect(void *eng, xu_seg_t *seg) { return xu_collect(((xu_device_t *)eng)->xu, seg); }
static uint64_t xd_probe_accept_cycle(const void *eng, uint64_t n)
{
    return xu_accept_cycle(((const xu_device_t *)eng)->xu, n);
}
static int xd_probe_backpressure(void *eng, unsigned gap, unsigned stall, uint64_t seed)
{
    return xu_set_backpressure(((xu_device_t *)eng)->xu, gap, stall, seed);
}
static int xd_trace_open(void *eng, const char *path, uint64_t from, uint64_t to)
{
    return xu_trace_open(((xu_device_t *)eng)->xu, path, from, to);
}
static void xd_trace_close(void *eng) { xu_trace_close(((xu_device_t *)eng)->xu); }
static void xd_get_stats(const void *eng, dev_engine_stats_t *st)
{
    (void)eng;
    memset(st, 0, sizeof *st);
}

const dev_engine_ops_t dev_engine_model = {
    .name = "model",
    .create = xd_create,
    .destroy = xd_destroy,
    .step = xd_step,
    .quiet_until = xd_quiet_until,
    .skip = xd_skip,
    .doorbell = xd_doorbell,
    .fw_post = xd_fw_post,
    .fw_poll = xd_fw_poll,
    .fw_irq_pin = xd_fw_irq_pin,
    .probe_submit = xd_probe_submit,
    .probe_pending = xd_probe_pending,
    .probe_collect = xd_probe_collect,
    .probe_accept_cycle = xd_probe_accept_cycle,
    .probe_backpressure = xd_probe_backpressure,
    .trace_open = xd_trace_open,
    .trace_close = xd_trace_close,
    .get_stats = xd_get_stats,
};
