/* hcadrv_cmd.c — the HCR mailbox: a command's arguments in BAR0 registers
 * (and host-memory mailboxes), the go bit, the wait for the answer, the
 * status mapped to an errno (hcadrv.h). */
#include "hcadrv_int.h"

#include <errno.h>

/* Cycles between two polls of HCR.CTRL.go: a driver spinning on MMIO reads. */
#define CMD_POLL_CYCLES 16u

static uint32_t hcr(uint32_t reg)
{
    return HCA_HOST_HCR_OFFSET + reg;
}

/* The firmware core stopped (CAUSE.FATAL): no command will be answered. */
static int device_dead(hcadrv_t *drv)
{
    uint32_t cause = 0;
    mmio_rd(drv, HCA_HOST_IRQ_OFFSET + HCA_HOST_IRQ_CAUSE, &cause);
    return HCA_HOST_IRQ_CAUSE_FATAL_GET(cause);
}

unsigned hcadrv_last_status(const hcadrv_t *drv)
{
    return drv ? drv->last_status : HCA_CMD_STATUS_OK;
}

uint64_t hcadrv_last_cmd_cycles(const hcadrv_t *drv)
{
    return drv ? drv->last_cycles : 0;
}

static int status_errno(unsigned st)
{
    switch (st) {
    case HCA_CMD_STATUS_OK: return 0;
    case HCA_CMD_STATUS_BAD_PARAM: return -EINVAL;
    case HCA_CMD_STATUS_NO_RESOURCES: return -ENOMEM;
    case HCA_CMD_STATUS_BUSY: return -EBUSY;
    case HCA_CMD_STATUS_BAD_INDEX: return -ENOENT;
    case HCA_CMD_STATUS_DMA_ERR: return -EFAULT;
    case HCA_CMD_STATUS_BAD_OP: return -EOPNOTSUPP;
    default: return -EIO;
    }
}

/* The answer of the command in the mailbox now, read into f. */
static void cmd_harvest(hcadrv_t *drv, cmd_frame_t *f)
{
    uint32_t st = 0, imm = 0;
    mmio_rd(drv, hcr(HCA_HCR_STATUS), &st);
    mmio_rd(drv, hcr(HCA_HCR_OUT_IMM), &imm);
    f->status = HCA_HCR_STATUS_STATUS_GET(st);
    f->imm = imm;
    f->cycles = now(drv) - f->t0;
    f->done = 1;
}

/* Wait for the go bit to fall; 0 or -ETIMEDOUT (t0: the command's post). */
static int cmd_wait_idle(hcadrv_t *drv, uint64_t t0)
{
    uint32_t ctrl = 0;
    for (;;) {
        mmio_rd(drv, hcr(HCA_HCR_CTRL), &ctrl);
        if (!HCA_HCR_CTRL_GO_GET(ctrl))
            return 0;
        if (now(drv) - t0 > HCADRV_CMD_TIMEOUT_CYCLES || device_dead(drv))
            return -ETIMEDOUT;
        drv->host.ops->wait(drv->host.ctx, CMD_POLL_CYCLES, 0);
    }
}

int hcadrv_cmd_settle(hcadrv_t *drv)
{
    if (!drv)
        return -EINVAL;
    for (unsigned i = drv->cmd_depth; i-- > 0;) {
        cmd_frame_t *f = &drv->cmd_frames[i];
        if (f->done)
            continue;
        int rc = cmd_wait_idle(drv, f->t0);
        if (rc)
            return rc;
        cmd_harvest(drv, f);
    }
    return 0;
}

/* Commands may nest: a call made while the driver waits for an answer (a
 * peer's invalidate callback run from inside the host's wait, as an
 * interrupt handler or another thread would) first lets the pending command
 * finish and keeps its answer for its caller, then posts its own. Nested
 * commands must not use the out mailbox (the outer caller reads it after). */
int hcadrv_cmd(hcadrv_t *drv, unsigned op, uint64_t in_param, uint64_t out_param, uint32_t in_mod,
               uint32_t *out_imm)
{
    if (!drv || op > 0xff)
        return -EINVAL;
    if (drv->cmd_depth == HCADRV_CMD_NEST_MAX)
        return -EBUSY;
    int rc = hcadrv_cmd_settle(drv);
    if (rc)
        return rc;
    uint32_t ctrl = 0;
    mmio_rd(drv, hcr(HCA_HCR_CTRL), &ctrl);
    if (HCA_HCR_CTRL_GO_GET(ctrl))
        return -EBUSY; /* the previous command never finished */
    mmio_wr(drv, hcr(HCA_HCR_IN_PARAM_LO), (uint32_t)in_param);
    mmio_wr(drv, hcr(HCA_HCR_IN_PARAM_HI), (uint32_t)(in_param >> 32));
    mmio_wr(drv, hcr(HCA_HCR_OUT_PARAM_LO), (uint32_t)out_param);
    mmio_wr(drv, hcr(HCA_HCR_OUT_PARAM_HI), (uint32_t)(out_param >> 32));
    mmio_wr(drv, hcr(HCA_HCR_IN_MOD), in_mod);
    const unsigned depth = drv->cmd_depth++;
    cmd_frame_t *f = &drv->cmd_frames[depth];
    *f = (cmd_frame_t){.t0 = now(drv)};
    mmio_wr(drv, hcr(HCA_HCR_CTRL), HCA_HCR_CTRL_OP_PUT(op) | HCA_HCR_CTRL_GO_PUT(1));
    /* A command nested in this wait finds our answer first and keeps it (f->done). */
    rc = cmd_wait_idle(drv, f->t0);
    if (!rc && !f->done)
        cmd_harvest(drv, f);
    drv->cmd_depth = depth;
    if (rc)
        return rc;
    drv->last_cycles = f->cycles;
    drv->last_status = f->status;
    if (out_imm)
        *out_imm = f->imm;
    return status_errno(f->status);
}

int drv_cmd_in(hcadrv_t *drv, unsigned op, const void *in, size_t len, uint32_t *out_imm)
{
    int rc = mem_wr(drv, drv->mbox_in, in, len);
    return rc ? rc : hcadrv_cmd(drv, op, drv->mbox_in, 0, 0, out_imm);
}

int drv_cmd_out(hcadrv_t *drv, unsigned op, uint32_t in_mod, void *out, size_t len)
{
    int rc = hcadrv_cmd(drv, op, 0, drv->mbox_out, in_mod, NULL);
    return rc ? rc : mem_rd(drv, drv->mbox_out, out, len);
}

/* Destroying an object the device does not hold (never created, or
 * destroyed already) is a bad argument: -EINVAL (SEMANTICS.md), not the
 * generic BAD_INDEX -ENOENT. */
int drv_destroy_errno(int rc)
{
    return rc == -ENOENT ? -EINVAL : rc;
}
