/* hca_dev.c — the device: firmware core + engine + mailbox + firmware DMA +
 * host interrupt, over one bus map, reporting on one event log.
 *
 * The engine is whichever dev_engine.h implementation the configuration
 * names; nothing here depends on which.
 *
 * One device cycle (dev_tick):
 *   1. the firmware core catches up to this cycle (it runs whole instructions;
 *      an MMIO access to the engine's firmware port stalls it until the port
 *      answers, so register timing is exact); its mailbox answers are shown
 *      to the protection checker;
 *   2. the engine takes its clock edge (doorbells, DMA, link, probes, the
 *      firmware-port access in flight);
 *   3. a firmware DMA transfer due this cycle completes;
 *   4. the firmware's interrupt line follows HCR.CTRL.go.
 */
#include "hca_dev.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "busmap.h"
#include "fwcore.h"
#include "hca_fseq.h"

/* The image of the tree this was built in: the last resort of
 * hca_dev_default_firmware (dev.mk sets it). */
#ifndef HCASIM_FIRMWARE_DEFAULT
#define HCASIM_FIRMWARE_DEFAULT "build/firmware/hcafw.elf"
#endif

typedef struct fdma_state {
    uint32_t host_lo, host_hi, local, len, ctrl;
    int busy, error;
    uint64_t done_at; /* cycle the running transfer completes */
} fdma_state_t;

typedef struct hcr_state {
    uint32_t in_lo, in_hi, out_lo, out_hi, in_mod, ctrl, status, out_imm;
} hcr_state_t;

/* The log's view of the memory-management events (regs evt): the head event
 * as the firmware read it, remembered by tag at POP, settled at DONE. The
 * device learns which keys an event invalidates or registers by watching the
 * firmware's own accesses, like it watches the mailbox. */
typedef struct evt_snoop {
    uint32_t head[HCA_EVT_DATA_COUNT];
    hca_fw_event_t by_tag[1u << HCA_FW_EVENT_TAG_WIDTH];
} evt_snoop_t;

struct hca_dev {
    fwcore_t *fc;
    rv32_t *cpu;
    const dev_engine_ops_t *eng_ops;
    void *eng;
    const uint8_t *fw_irq; /* the engine's fw_irq output */
    evlog_t log;
    protcheck_t *pc;
    hostmem_t *mem;    /* host memory: the bus map's fallback, the host's device-visible memory */
    int no_peer_invalidation; /* strap: INVALIDATE_MKEY refused, PEER_MEMORY not claimed */
    unsigned max_indirection; /* strap: the KLM walk's depth (0: the device's maximum) */
    busmap_t *busmap;  /* what the engine's DMA and the firmware DMA reach */
    bus_t bus;         /* busmap as a bus */
    bus_timing_t host;
    uint32_t irq_cause, irq_mask; /* regs host_irq (FATAL is computed) */
    hcr_state_t hcr;
    fdma_state_t fdma;
    hca_fseq_t fseq; /* the port sequencer */
    evt_snoop_t evt;
    int fwp_posted;    /* an access to the unit's firmware port is in flight */
    int runahead;      /* the firmware runs ahead of a quiet device: any device access stalls it */
    int irq_line;      /* the level last driven on the core's interrupt input */
    uint64_t now;      /* the cycle the next tick runs */
    uint64_t fw_sleep; /* core cycles spent asleep in WFI */
    uint64_t skipped;  /* device cycles not stepped (hca_dev_step) */
    hca_dev_fw_stats_t fw_prof; /* port and fdma counters (hca_dev_get_fw_stats) */
    uint64_t *pc_prof;          /* cycles per RAM word (hca_dev_fw_profile_start), or NULL */
    char *firmware;             /* the image's path */
    rv32_stop_t fw_stop;
};

/* The default image, found from the running executable so that a moved or
 * installed build loads its own image, not the build tree's:
 *   <exe dir>/../firmware/hcafw.elf      a build tree (build/bin/, build/firmware/)
 *   <exe dir>/../share/hcasim/hcafw.elf  an install prefix (bin/, share/hcasim/)
 * the first that exists (as its canonical path), else the compile-time path. */
static char fw_default[PATH_MAX];
static pthread_once_t fw_default_once = PTHREAD_ONCE_INIT;

static void find_default_firmware(void)
{
    static const char *const rel[] = {"/../firmware/hcafw.elf", "/../share/hcasim/hcafw.elf"};
    char exe[PATH_MAX], cand[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    snprintf(fw_default, sizeof fw_default, "%s", HCASIM_FIRMWARE_DEFAULT);
    if (n <= 0)
        return;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return;
    *slash = 0;
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        snprintf(cand, sizeof cand, "%s%s", exe, rel[i]);
        if (access(cand, R_OK) == 0 && realpath(cand, fw_default))
            return;
    }
    snprintf(fw_default, sizeof fw_default, "%s", HCASIM_FIRMWARE_DEFAULT);
}

const char *hca_dev_default_firmware(void)
{
    pthread_once(&fw_default_once, find_default_firmware);
    return fw_default;
}

/* ---------------------------------------------------------------- register blocks */

static uint32_t *hcr_reg(hcr_state_t *h, uint32_t off)
{
    switch (off) {
    case HCA_HCR_IN_PARAM_LO: return &h->in_lo;
    case HCA_HCR_IN_PARAM_HI: return &h->in_hi;
    case HCA_HCR_OUT_PARAM_LO: return &h->out_lo;
    case HCA_HCR_OUT_PARAM_HI: return &h->out_hi;
    case HCA_HCR_IN_MOD: return &h->in_mod;
    case HCA_HCR_CTRL: return &h->ctrl;
    case HCA_HCR_STATUS: return &h->status;
    case HCA_HCR_OUT_IMM: return &h->out_imm;
    default: return NULL;
    }
}

/* The firmware sees the same HCR registers the host does. */
static int fw_hcr_load(void *ctx, uint32_t off, unsigned size, uint32_t *val)
{
    if (((hca_dev_t *)ctx)->runahead)
        return RV32_BUS_STALL;
    uint32_t *r = size == 4 ? hcr_reg(&((hca_dev_t *)ctx)->hcr, off) : NULL;
    if (!r)
        return RV32_BUS_FAULT;
    *val = *r;
    return RV32_BUS_OK;
}

/* regs strap: the device's build options, read-only. */
static int fw_strap_load(void *ctx, uint32_t off, unsigned size, uint32_t *val)
{
    const hca_dev_t *d = ctx;
    if (size != 4 || off != HCA_STRAP_FEATURES)
        return RV32_BUS_FAULT;
    *val = HCA_STRAP_FEATURES_PEER_INVALIDATION_PUT(!d->no_peer_invalidation) |
           HCA_STRAP_FEATURES_MAX_INDIRECTION_PUT(d->max_indirection);
    return RV32_BUS_OK;
}

static int fw_strap_store(void *ctx, uint32_t off, unsigned size, uint32_t val)
{
    (void)ctx, (void)off, (void)size, (void)val;
    return RV32_BUS_FAULT;
}

static void log_key(hca_dev_t *d, evlog_kind_t kind, uint32_t key, int on, const char *what)
{
    evlog_emit(&d->log, &(evlog_event_t){.kind = kind, .cycle = d->now, .key = key, .on = (uint8_t)on, .what = what});
}

/* The firmware answers a command by clearing CTRL.go (STATUS, OUT_IMM written
 * before): the host is interrupted, and the log learns which keys died
 * (DESTROY_MKEY, INVALIDATE_MKEY, IN_MOD = key: invalidated and fenced by now) and which were
 * born (CREATE_MKEY, OUT_IMM). */
static void mailbox_answered(hca_dev_t *d, uint32_t op)
{
    d->irq_cause |= HCA_HOST_IRQ_CAUSE_CMD_DONE_PUT(1);
    if (HCA_HCR_STATUS_STATUS_GET(d->hcr.status) != HCA_CMD_STATUS_OK) {
        if (op == HCA_CMD_OP_DESTROY_MKEY || op == HCA_CMD_OP_INVALIDATE_MKEY) /* the key stays as it was */
            log_key(d, EVLOG_KEY_INVALIDATING, d->hcr.in_mod, 0, NULL);
        return;
    }
    if (op == HCA_CMD_OP_DESTROY_MKEY)
        log_key(d, EVLOG_KEY_INVALID, d->hcr.in_mod, 0, "DESTROY_MKEY");
    else if (op == HCA_CMD_OP_INVALIDATE_MKEY)
        log_key(d, EVLOG_KEY_INVALID, d->hcr.in_mod, 0, "INVALIDATE_MKEY");
    else if (op == HCA_CMD_OP_CREATE_MKEY)
        log_key(d, EVLOG_KEY_VALID, d->hcr.out_imm, 0, NULL);
    /* QPs: fenced by DESTROY_QP and MODIFY_QP RESET (IN_MOD = qpn | state << 16), live again once connected. */
    const uint32_t qpn = d->hcr.in_mod & 0xffffu, arg = d->hcr.in_mod >> 16;
    if (op == HCA_CMD_OP_DESTROY_QP || (op == HCA_CMD_OP_MODIFY_QP && arg == HCA_QP_STATE_RESET))
        evlog_emit(&d->log, &(evlog_event_t){.kind = EVLOG_QP_FENCED, .cycle = d->now, .qpn = qpn,
                                             .what = op == HCA_CMD_OP_DESTROY_QP ? "DESTROY_QP" : "MODIFY_QP RESET"});
    else if (op == HCA_CMD_OP_CONNECT_QP)
        for (int i = 0; i < 2; i++)
            evlog_emit(&d->log, &(evlog_event_t){.kind = EVLOG_QP_LIVE, .cycle = d->now, .qpn = i ? arg : qpn});
}

static int fw_hcr_store(void *ctx, uint32_t off, unsigned size, uint32_t val)
{
    if (((hca_dev_t *)ctx)->runahead)
        return RV32_BUS_STALL;
    hca_dev_t *d = ctx;
    uint32_t *r = size == 4 ? hcr_reg(&d->hcr, off) : NULL;
    if (!r)
        return RV32_BUS_FAULT;
    const uint32_t old = *r;
    *r = val;
    if (off == HCA_HCR_CTRL && HCA_HCR_CTRL_GO_GET(old) && !HCA_HCR_CTRL_GO_GET(val))
        mailbox_answered(d, HCA_HCR_CTRL_OP_GET(old));
    return RV32_BUS_OK;
}

/* The engine's firmware port: the access goes over its pins and the firmware
 * core stalls until it answers. off = firmware address - DEVREG_BASE. */
static int fw_port_access(hca_dev_t *d, int write, uint32_t off, unsigned size, uint32_t wdata, uint32_t *rdata)
{
    if (d->runahead)
        return RV32_BUS_STALL;
    if (size != 4)
        return RV32_BUS_FAULT;
    if (d->fseq.posted)
        return RV32_BUS_STALL; /* the sequencer's access holds the port */
    if (!d->fwp_posted) {
        if (d->eng_ops->fw_post(d->eng, write, off, wdata))
            return RV32_BUS_FAULT; /* no register there */
        d->fwp_posted = 1;
    }
    uint32_t v = 0;
    if (d->eng_ops->fw_poll(d->eng, &v) != 1)
        return RV32_BUS_STALL;
    d->fwp_posted = 0;
    d->fw_prof.port_accesses++;
    if (rdata)
        *rdata = v;
    return RV32_BUS_OK;
}

#define FWP_PORT_OFF (HCA_FWP_BASE - HCA_DEVREG_BASE)
#define CTX_PORT_OFF (HCA_FW_CTX_BASE - HCA_DEVREG_BASE)

static int fw_fwp_load(void *ctx, uint32_t off, unsigned size, uint32_t *val)
{
    return fw_port_access(ctx, 0, FWP_PORT_OFF + off, size, 0, val);
}

static int fw_fwp_store(void *ctx, uint32_t off, unsigned size, uint32_t val)
{
    return fw_port_access(ctx, 1, FWP_PORT_OFF + off, size, val, NULL);
}

static int fw_ctx_load(void *ctx, uint32_t off, unsigned size, uint32_t *val)
{
    return fw_port_access(ctx, 0, CTX_PORT_OFF + off, size, 0, val);
}

static int fw_ctx_store(void *ctx, uint32_t off, unsigned size, uint32_t val)
{
    return fw_port_access(ctx, 1, CTX_PORT_OFF + off, size, val, NULL);
}

#define EVT_PORT_OFF (HCA_FW_EVT_BASE - HCA_DEVREG_BASE)

/* A REG_INDIR_MR succeeded: the log learns its entries' keys (the list is
 * still the consumer's, untouched until this WR's completion), so the checker
 * fences the indirect key with each entry's invalidation (rule 7). */
static void log_klm(hca_dev_t *d, const hca_fw_event_t *ev)
{
    const uint32_t n = (ev->params >> HCA_SQ_WQE_FR_LIST_LEN_LSB) & ((1u << HCA_SQ_WQE_FR_LIST_LEN_WIDTH) - 1u);
    hca_klm_entry_t e[HCA_MAX_INDIR_REG_LIST_LEN];
    uint32_t keys[HCA_MAX_INDIR_REG_LIST_LEN];
    if (n == 0 || n > HCA_MAX_INDIR_REG_LIST_LEN || bus_read(&d->bus, ev->list, e, n * sizeof e[0]))
        return;
    for (uint32_t i = 0; i < n; i++)
        keys[i] = e[i].lkey;
    evlog_emit(&d->log, &(evlog_event_t){.kind = EVLOG_KEY_DEPENDS, .cycle = d->now, .key = ev->key, .keys = keys,
                                         .nkeys = n});
}

/* An answered access to the event queue (off inside regs evt), the core's or
 * the sequencer's: the head as read; POP: from now on checks through an
 * invalidated key may fail (I4 counts the span). DONE: an invalidation that
 * succeeded is complete — no DMA may reach memory through the key from this
 * cycle on; a registration's key is live. */
static void evt_snoop(hca_dev_t *d, int write, uint32_t off, uint32_t val)
{
    if (!write) {
        if (off < sizeof d->evt.head)
            d->evt.head[off / 4] = val;
        return;
    }
    if (off == HCA_EVT_POP) {
        hca_fw_event_t ev;
        memcpy(&ev, d->evt.head, sizeof ev);
        d->evt.by_tag[hca_fw_event_get_tag(&ev)] = ev;
        memset(d->evt.head, 0, sizeof d->evt.head); /* the next head's words not read stay 0 (READ_EVT) */
        if (hca_evt_kind_invalidates(hca_fw_event_get_kind(&ev)))
            log_key(d, EVLOG_KEY_INVALIDATING, ev.key, 1, NULL);
    } else if (off == HCA_EVT_DONE) {
        const hca_fw_event_t *ev = &d->evt.by_tag[HCA_EVT_DONE_TAG_GET(val)];
        const unsigned kind = hca_fw_event_get_kind(ev);
        const int ok = HCA_EVT_DONE_STATUS_GET(val) == HCA_WC_STATUS_SUCCESS;
        if (hca_evt_kind_invalidates(kind) && ok)
            log_key(d, EVLOG_KEY_INVALID, ev->key, 0, hca_evt_kind_name(kind));
        else if (hca_evt_kind_invalidates(kind))
            log_key(d, EVLOG_KEY_INVALIDATING, ev->key, 0, NULL);
        else if (ok && (kind == HCA_EVT_KIND_FAST_REG_MR || kind == HCA_EVT_KIND_REG_INDIR_MR))
            log_key(d, EVLOG_KEY_VALID, ev->key, 0, NULL);
        if (ok && kind == HCA_EVT_KIND_REG_INDIR_MR)
            log_klm(d, ev);
    }
}

static int fw_evt_load(void *ctx, uint32_t off, unsigned size, uint32_t *val)
{
    int rc = fw_port_access(ctx, 0, EVT_PORT_OFF + off, size, 0, val);
    if (rc == RV32_BUS_OK)
        evt_snoop(ctx, 0, off, *val);
    return rc;
}

static int fw_evt_store(void *ctx, uint32_t off, unsigned size, uint32_t val)
{
    int rc = fw_port_access(ctx, 1, EVT_PORT_OFF + off, size, val, NULL);
    if (rc == RV32_BUS_OK)
        evt_snoop(ctx, 1, off, val);
    return rc;
}

/* ---------------------------------------------------------------- port sequencer (hca_fseq.c) */

static int fseq_post(void *ctx, int write, uint32_t off, uint32_t val)
{
    hca_dev_t *d = ctx;
    return d->eng_ops->fw_post(d->eng, write, off, val);
}

static int fseq_poll(void *ctx, uint32_t *val)
{
    hca_dev_t *d = ctx;
    return d->eng_ops->fw_poll(d->eng, val);
}

/* The event queue's registers are snooped as the core's accesses are. */
static void fseq_answered(void *ctx, int write, uint32_t off, uint32_t val)
{
    if (off - EVT_PORT_OFF < HCA_EVT_DONE + 4)
        evt_snoop(ctx, write, off - EVT_PORT_OFF, val);
}

static void fseq_tick(hca_dev_t *d)
{
    const hca_fseq_port_t p = {d, fwcore_ram(d->fc), fseq_post, fseq_poll, fseq_answered};
    d->fw_prof.seq_accesses += hca_fseq_tick(&d->fseq, &p, d->fwp_posted);
}

static int fw_fseq_load(void *ctx, uint32_t off, unsigned size, uint32_t *val)
{
    hca_dev_t *d = ctx;
    if (d->runahead)
        return RV32_BUS_STALL;
    if (size != 4)
        return RV32_BUS_FAULT;
    if (off == HCA_FSEQ_PROG)
        *val = d->fseq.prog;
    else if (off == HCA_FSEQ_STATUS)
        *val = hca_fseq_status(&d->fseq);
    else if (off == HCA_FSEQ_IDLE && d->fseq.busy)
        return RV32_BUS_STALL; /* held until the program ends */
    else if (off == HCA_FSEQ_IDLE)
        *val = hca_fseq_status(&d->fseq);
    else if (off == HCA_FSEQ_RUN || off == HCA_FSEQ_GO)
        *val = 0;
    else
        return RV32_BUS_FAULT;
    return RV32_BUS_OK;
}

static int fw_fseq_store(void *ctx, uint32_t off, unsigned size, uint32_t val)
{
    hca_dev_t *d = ctx;
    if (d->runahead)
        return RV32_BUS_STALL;
    if (size != 4)
        return RV32_BUS_FAULT;
    if (off == HCA_FSEQ_PROG) {
        if (!d->fseq.busy)
            d->fseq.prog = val;
    } else if (off == HCA_FSEQ_RUN) {
        d->fw_prof.seq_programs += (uint64_t)hca_fseq_run(&d->fseq, HCA_FSEQ_RUN_COUNT_GET(val));
    } else if (off == HCA_FSEQ_GO) {
        if (!d->fseq.busy)
            d->fseq.prog = HCA_FW_RAM_BASE + 8u * HCA_FSEQ_GO_ENTRY_GET(val);
        d->fw_prof.seq_programs += (uint64_t)hca_fseq_run(&d->fseq, HCA_FSEQ_GO_COUNT_GET(val));
    } else if (off != HCA_FSEQ_STATUS && off != HCA_FSEQ_IDLE) {
        return RV32_BUS_FAULT;
    }
    return RV32_BUS_OK;
}

static void fdma_start(hca_dev_t *d)
{
    fdma_state_t *f = &d->fdma;
    int write = HCA_FDMA_CTRL_WRITE_GET(f->ctrl);
    uint64_t local_end = (uint64_t)f->local + f->len;
    f->error = 0;
    if (f->len == 0 || f->len > HCA_FDMA_MAX_LEN || f->local < HCA_FW_RAM_BASE ||
        local_end > (uint64_t)HCA_FW_RAM_BASE + HCA_FW_RAM_SIZE) {
        f->error = 1; /* refused at once: no bus traffic */
        return;
    }
    f->busy = 1;
    const bus_timing_t t = bus_timing_at(&d->bus, (uint64_t)f->host_hi << 32 | f->host_lo, &d->host);
    f->done_at = d->now + bus_transfer_cycles(&t, write, f->len);
    d->fw_prof.fdma_transfers++;
    d->fw_prof.fdma_cycles += f->done_at - d->now;
}

/* The copy happens when the transfer completes, as a bus master would see it. */
static void fdma_finish(hca_dev_t *d)
{
    fdma_state_t *f = &d->fdma;
    uint64_t host = (uint64_t)f->host_hi << 32 | f->host_lo;
    uint8_t *ram = fwcore_ram(d->fc) + (f->local - HCA_FW_RAM_BASE);
    int rc = HCA_FDMA_CTRL_WRITE_GET(f->ctrl) ? bus_write(&d->bus, host, ram, f->len)
                                              : bus_read(&d->bus, host, ram, f->len);
    f->error = rc != 0;
    f->busy = 0;
}

static uint32_t *fdma_reg(fdma_state_t *f, uint32_t off)
{
    switch (off) {
    case HCA_FDMA_HOST_LO: return &f->host_lo;
    case HCA_FDMA_HOST_HI: return &f->host_hi;
    case HCA_FDMA_LOCAL: return &f->local;
    case HCA_FDMA_LEN: return &f->len;
    case HCA_FDMA_CTRL: return &f->ctrl;
    default: return NULL;
    }
}

static int fw_fdma_load(void *ctx, uint32_t off, unsigned size, uint32_t *val)
{
    if (((hca_dev_t *)ctx)->runahead)
        return RV32_BUS_STALL;
    fdma_state_t *f = &((hca_dev_t *)ctx)->fdma;
    if (size != 4)
        return RV32_BUS_FAULT;
    if (off == HCA_FDMA_STATUS) {
        *val = HCA_FDMA_STATUS_BUSY_PUT(f->busy) | HCA_FDMA_STATUS_ERROR_PUT(f->error);
        return RV32_BUS_OK;
    }
    uint32_t *r = fdma_reg(f, off);
    if (!r)
        return RV32_BUS_FAULT;
    *val = *r;
    return RV32_BUS_OK;
}

static int fw_fdma_store(void *ctx, uint32_t off, unsigned size, uint32_t val)
{
    hca_dev_t *d = ctx;
    if (d->runahead)
        return RV32_BUS_STALL;
    uint32_t *r = size == 4 ? fdma_reg(&d->fdma, off) : NULL;
    if (!r)
        return RV32_BUS_FAULT;
    if (d->fdma.busy)
        return RV32_BUS_OK; /* registers are frozen while a transfer runs */
    *r = val;
    if (off == HCA_FDMA_CTRL)
        fdma_start(d);
    return RV32_BUS_OK;
}

/* ---------------------------------------------------------------- the clock */

/* Let the core run up to the end of this cycle. */
static void fw_catch_up(hca_dev_t *d)
{
    uint64_t target = d->now + 1;
    while (rv32_cycles(d->cpu) < target) {
        uint64_t before = rv32_cycles(d->cpu);
        rv32_stop_t s = fwcore_run(d->fc, target - before);
        d->fw_stop = s;
        if (s == RV32_STOP_STALL) {
            d->fw_prof.port_stall_cycles += target - rv32_cycles(d->cpu);
            rv32_add_cycles(d->cpu, target - rv32_cycles(d->cpu)); /* waits for the device */
            break;
        }
        if (s == RV32_STOP_WFI) {
            d->fw_sleep += rv32_cycles(d->cpu) - before;
            break;
        }
        if (s == RV32_STOP_HALT || s == RV32_STOP_TRAP)
            break;
    }
}

static void dev_tick(hca_dev_t *d)
{
    if (d->fw_stop != RV32_STOP_HALT && d->fw_stop != RV32_STOP_TRAP)
        fw_catch_up(d);
    if (d->pc_prof && d->fw_stop != RV32_STOP_WFI && d->fw_stop != RV32_STOP_HALT && d->fw_stop != RV32_STOP_TRAP) {
        uint32_t w = (rv32_pc(d->cpu) - HCA_FW_RAM_BASE) / 4;
        if (w < HCA_FW_RAM_SIZE / 4)
            d->pc_prof[w]++;
    }
    d->eng_ops->step(d->eng);
    if (d->fdma.busy && d->fdma.done_at <= d->now)
        fdma_finish(d);
    fseq_tick(d);
    d->irq_line = HCA_HCR_CTRL_GO_GET(d->hcr.ctrl) || *d->fw_irq;
    rv32_set_irq(d->cpu, d->irq_line);
    d->now++;
}

/* The first cycle in [now, end] that must be stepped: while the firmware
 * sleeps with nothing to wake it and the engine and the firmware DMA are
 * quiet, cycles pass without anything happening (either engine skips them:
 * the RTL's core takes time as an input, hca_core now_i, and says when it is
 * quiet). */
static uint64_t dev_quiet_until(const hca_dev_t *d, uint64_t end)
{
    const int fw_idle = d->fw_stop == RV32_STOP_WFI || d->fw_stop == RV32_STOP_HALT || d->fw_stop == RV32_STOP_TRAP;
    if (!fw_idle || HCA_HCR_CTRL_GO_GET(d->hcr.ctrl) || *d->fw_irq || d->fseq.busy)
        return d->now;
    uint64_t q = d->eng_ops->quiet_until(d->eng);
    if (d->fdma.busy && d->fdma.done_at < q)
        q = d->fdma.done_at;
    return q < end ? q : end;
}

/* dev_run_ahead under a firmware profile: the core runs cycle by cycle as
 * dev_tick's catch-up would (one instruction once it has reached the cycle)
 * and each cycle is counted at the pc dev_tick would have seen, so the
 * profile is the one stepping gives, without stepping the engine. Returns
 * the first cycle not done (a stalled access: its tick retries it). */
static uint64_t dev_run_ahead_profiled(hca_dev_t *d, uint64_t t)
{
    uint64_t n = d->now;
    d->runahead = 1;
    for (; n < t; n++) {
        const uint64_t before = rv32_cycles(d->cpu);
        if (before <= n) {
            d->fw_stop = fwcore_run(d->fc, n + 1 - before);
            if (d->fw_stop == RV32_STOP_STALL)
                break;
            if (d->fw_stop != RV32_STOP_BUDGET) { /* wfi, halt, trap: that tick counts nothing */
                if (d->fw_stop == RV32_STOP_WFI)
                    d->fw_sleep += rv32_cycles(d->cpu) - before;
                n++;
                break;
            }
        }
        const uint32_t w = (rv32_pc(d->cpu) - HCA_FW_RAM_BASE) / 4;
        if (w < HCA_FW_RAM_SIZE / 4)
            d->pc_prof[w]++;
    }
    d->runahead = 0;
    return n;
}

/* The firmware awake while the rest of the device is quiet: the core runs
 * alone, up to the first cycle the device may act in, and stops early at
 * its first access to any device register (it stalls without effect and is
 * retried by the tick of its cycle) or at wfi. Nothing it can observe
 * changes meanwhile, so the device then jumps to where the core stopped,
 * exactly as stepping would have arrived there. Returns that cycle (now:
 * no run). */
static uint64_t dev_run_ahead(hca_dev_t *d, uint64_t end)
{
    const int irq = HCA_HCR_CTRL_GO_GET(d->hcr.ctrl) || *d->fw_irq;
    /* asleep: dev_quiet_until's; stalled: the tick of its cycle retries the access */
    if (d->fw_stop == RV32_STOP_HALT || d->fw_stop == RV32_STOP_TRAP || d->fw_stop == RV32_STOP_WFI ||
        d->fw_stop == RV32_STOP_STALL || d->fwp_posted || irq != d->irq_line || d->fseq.busy)
        return d->now;
    uint64_t t = d->eng_ops->quiet_until(d->eng);
    if (d->fdma.busy && d->fdma.done_at < t)
        t = d->fdma.done_at;
    if (t > end)
        t = end;
    if (t <= d->now + 1 || rv32_cycles(d->cpu) >= t)
        return d->now;
    if (d->pc_prof)
        return dev_run_ahead_profiled(d, t);
    d->runahead = 1;
    while (rv32_cycles(d->cpu) < t) {
        const uint64_t before = rv32_cycles(d->cpu);
        d->fw_stop = fwcore_run(d->fc, t - before);
        if (d->fw_stop == RV32_STOP_WFI)
            d->fw_sleep += rv32_cycles(d->cpu) - before;
        if (d->fw_stop != RV32_STOP_BUDGET)
            break;
    }
    d->runahead = 0;
    const uint64_t at = rv32_cycles(d->cpu);
    return at < t ? (at > d->now ? at : d->now) : t;
}

/* Let the device's clock jump to `to` (quiet until then): the engine skips. */
static void dev_jump(hca_dev_t *d, uint64_t to)
{
    d->eng_ops->skip(d->eng, to);
    d->skipped += to - d->now;
    d->now = to;
}

void hca_dev_step(hca_dev_t *d, uint64_t n)
{
    if (!d)
        return;
    const uint64_t end = n > UINT64_MAX - d->now ? UINT64_MAX : d->now + n;
    while (d->now < end) {
        uint64_t q = dev_quiet_until(d, end);
        if (q > d->now) {
            if (d->fw_stop == RV32_STOP_WFI && rv32_cycles(d->cpu) < q) { /* slept through */
                d->fw_sleep += q - rv32_cycles(d->cpu);
                rv32_add_cycles(d->cpu, q - rv32_cycles(d->cpu));
            }
            dev_jump(d, q);
            continue;
        }
        if ((q = dev_run_ahead(d, end)) > d->now) {
            dev_jump(d, q);
            continue;
        }
        dev_tick(d);
    }
}

uint64_t hca_dev_skipped_cycles(const hca_dev_t *d) { return d ? d->skipped : 0; }

uint64_t hca_dev_quiet_cycles(const hca_dev_t *d)
{
    return d ? dev_quiet_until(d, UINT64_MAX) - d->now : 0;
}

uint64_t hca_dev_cycle(const hca_dev_t *d)
{
    return d ? d->now : 0;
}

/* ---------------------------------------------------------------- life cycle */

/* Completions written: the host interrupt's CQE cause. */
static void dev_on_event(void *ctx, const evlog_event_t *e)
{
    if (e->kind == EVLOG_CQE)
        ((hca_dev_t *)ctx)->irq_cause |= HCA_HOST_IRQ_CAUSE_CQE_PUT(1);
}

/* mem: the host's device-visible memory, or NULL when the platform owns it
 * (hca_dev_create_on_bus); fallback: what the bus map routes to outside windows. */
static int dev_create(hca_dev_t **out, const hca_dev_config_t *cfg, hostmem_t *mem, bus_t fallback, char *err,
                      size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    if (!out || !cfg || !fallback.ops)
        return -EINVAL;
    *out = NULL;
    const dev_engine_ops_t *ops = dev_engine_get(cfg->engine);
    if (!ops)
        return -EINVAL;
    hca_dev_t *d = calloc(1, sizeof *d);
    if (!d)
        return -ENOMEM;
    d->eng_ops = ops;
    d->mem = mem;
    d->host = cfg->host.bytes_per_cycle ? cfg->host : bus_default_timing();
    d->irq_mask = ~0u;
    d->no_peer_invalidation = cfg->no_peer_invalidation;
    if (cfg->max_indirection > HCA_MAX_INDIRECTION) {
        if (err)
            snprintf(err, errlen, "max_indirection %u: the device follows at most %u", cfg->max_indirection,
                     HCA_MAX_INDIRECTION);
        free(d);
        return -EINVAL;
    }
    d->max_indirection = cfg->max_indirection;
    fwcore_config_t fcfg;
    memset(&fcfg, 0, sizeof fcfg);
    fcfg.costs = cfg->core;
    int rc = protcheck_create(&d->pc);
    const char *what = "protection checker";
    if (!rc) /* the checker hears everything first, then the device itself */
        rc = protcheck_attach(d->pc, &d->log);
    if (!rc)
        rc = evlog_subscribe(&d->log, dev_on_event, d) ? -ENOSPC : 0;
    if (!rc) {
        what = "bus map";
        rc = busmap_create(&d->busmap, fallback);
    }
    if (!rc) {
        d->bus = busmap_bus(d->busmap);
        dev_engine_config_t ecfg;
        memset(&ecfg, 0, sizeof ecfg);
        if (cfg->tables.mpt_entries)
            ecfg.tables = cfg->tables;
        ecfg.dma = d->host;
        ecfg.link_latency = cfg->link_latency;
        ecfg.link_bytes_per_cycle = cfg->link_bytes_per_cycle;
        const dev_engine_env_t env = {d->bus, &d->log};
        what = "device engine";
        rc = ops->create(&d->eng, &ecfg, &env);
        if (rc)
            d->eng = NULL;
        else
            d->fw_irq = ops->fw_irq_pin(d->eng);
    }
    if (rc) {
        if (err)
            snprintf(err, errlen, "%s: %s", what, strerror(-rc));
        hca_dev_destroy(d);
        return rc;
    }
    /* Every register block of the firmware's device window; the engine
     * answers (or refuses: a bus fault) the accesses to its own. */
    const fwcore_mmio_t blocks[] = {
        {"fwp", HCA_FWP_BASE, HCA_FWP_CONFIG + 4, d, fw_fwp_load, fw_fwp_store},
        {"ctx", HCA_FW_CTX_BASE, HCA_CTX_STATUS + 4, d, fw_ctx_load, fw_ctx_store},
        {"hcr", HCA_FW_HCR_BASE, HCA_HCR_OUT_IMM + 4, d, fw_hcr_load, fw_hcr_store},
        {"fdma", HCA_FDMA_BASE, HCA_FDMA_STATUS + 4, d, fw_fdma_load, fw_fdma_store},
        {"evt", HCA_FW_EVT_BASE, HCA_EVT_DONE + 4, d, fw_evt_load, fw_evt_store},
        {"strap", HCA_FW_STRAP_BASE, HCA_STRAP_FEATURES + 4, d, fw_strap_load, fw_strap_store},
        {"fseq", HCA_FW_FSEQ_BASE, HCA_FSEQ_IDLE + 4, d, fw_fseq_load, fw_fseq_store},
    };
    rc = fwcore_create(&d->fc, &fcfg);
    for (size_t i = 0; !rc && i < sizeof blocks / sizeof blocks[0]; i++)
        rc = fwcore_map_mmio(d->fc, &blocks[i]);
    if (rc) {
        if (err)
            snprintf(err, errlen, "firmware core: %s", strerror(-rc));
        hca_dev_destroy(d);
        return rc;
    }
    const char *fw = cfg->firmware ? cfg->firmware : hca_dev_default_firmware();
    d->firmware = strdup(fw);
    rc = d->firmware ? fwcore_load(d->fc, fw, err, errlen) : -ENOMEM;
    if (rc) {
        hca_dev_destroy(d);
        return rc;
    }
    d->cpu = fwcore_cpu(d->fc);
    *out = d;
    return 0;
}

int hca_dev_create(hca_dev_t **out, const hca_dev_config_t *cfg, hostmem_t *mem, char *err, size_t errlen)
{
    if (!mem)
        return -EINVAL;
    return dev_create(out, cfg, mem, hostmem_bus(mem), err, errlen);
}

int hca_dev_create_on_bus(hca_dev_t **out, const hca_dev_config_t *cfg, bus_t mem, char *err, size_t errlen)
{
    return dev_create(out, cfg, NULL, mem, err, errlen);
}

void hca_dev_destroy(hca_dev_t *d)
{
    if (!d)
        return;
    fwcore_destroy(d->fc);
    if (d->eng)
        d->eng_ops->destroy(d->eng);
    busmap_destroy(d->busmap);
    protcheck_destroy(d->pc);
    free(d->pc_prof);
    free(d->firmware);
    free(d);
}

/* ---------------------------------------------------------------- host side */

/* The BAR0 register at offset, or NULL. Unsigned wrap-around makes offsets
 * below a block fail its range check too. */
static uint32_t *bar0_reg(hca_dev_t *d, uint32_t offset)
{
    const uint32_t rel = offset - HCA_HOST_HCR_OFFSET;
    if (rel <= HCA_HCR_OUT_IMM)
        return hcr_reg(&d->hcr, rel);
    if (offset == HCA_HOST_IRQ_OFFSET + HCA_HOST_IRQ_MASK)
        return &d->irq_mask;
    return NULL;
}

/* The doorbell register at offset (HCA_DB_*), or -1. */
static int bar0_db(uint32_t offset)
{
    uint32_t rel = offset - HCA_HOST_DB_OFFSET;
    return rel == HCA_DB_SQ || rel == HCA_DB_RQ || rel == HCA_DB_CQ ? (int)rel : -1;
}

/* CAUSE as the host reads it: the latched events and FATAL, the firmware's state. */
static uint32_t irq_cause(const hca_dev_t *d)
{
    const int stopped = d->fw_stop == RV32_STOP_HALT || d->fw_stop == RV32_STOP_TRAP;
    return d->irq_cause | HCA_HOST_IRQ_CAUSE_FATAL_PUT(stopped);
}

int hca_dev_host_irq(const hca_dev_t *d)
{
    return d && (irq_cause(d) & d->irq_mask) != 0;
}

int hca_dev_mmio_read(hca_dev_t *d, uint32_t offset, uint32_t *val)
{
    if (!d || !val)
        return -EINVAL;
    if (offset == HCA_HOST_IRQ_OFFSET + HCA_HOST_IRQ_CAUSE) {
        *val = irq_cause(d);
        return 0;
    }
    uint32_t *r = bar0_reg(d, offset);
    *val = r ? *r : 0;
    return r || bar0_db(offset) >= 0 ? 0 : -EINVAL;
}

int hca_dev_mmio_write(hca_dev_t *d, uint32_t offset, uint32_t val)
{
    if (!d)
        return -EINVAL;
    int db = bar0_db(offset);
    if (db >= 0)
        return d->eng_ops->doorbell(d->eng, (uint32_t)db, val);
    if (offset == HCA_HOST_IRQ_OFFSET + HCA_HOST_IRQ_CAUSE) {
        d->irq_cause &= ~val; /* write 1 to clear; FATAL is not latched */
        return 0;
    }
    uint32_t *r = bar0_reg(d, offset);
    if (!r)
        return -EINVAL;
    const uint32_t old = *r;
    *r = val;
    /* A DESTROY_MKEY or INVALIDATE_MKEY posted: from now on the device may fail checks through
     * the key (the checker's I4 counts the invalidation from here to the answer). */
    if (offset == HCA_HOST_HCR_OFFSET + HCA_HCR_CTRL && !HCA_HCR_CTRL_GO_GET(old) && HCA_HCR_CTRL_GO_GET(val) &&
        (HCA_HCR_CTRL_OP_GET(val) == HCA_CMD_OP_DESTROY_MKEY || HCA_HCR_CTRL_OP_GET(val) == HCA_CMD_OP_INVALIDATE_MKEY))
        log_key(d, EVLOG_KEY_INVALIDATING, d->hcr.in_mod, 1, NULL);
    return 0;
}

/* ---------------------------------------------------------------- the driver's boundary (hca_host.h) */

static int host_mmio_read(void *ctx, uint32_t offset, uint32_t *val) { return hca_dev_mmio_read(ctx, offset, val); }
static int host_mmio_write(void *ctx, uint32_t offset, uint32_t val) { return hca_dev_mmio_write(ctx, offset, val); }

/* A device on the platform's bus (hca_dev_create_on_bus) has no memory of its
 * own to hand out: the platform allocates; reads and writes go to that bus. */
static int host_mem_alloc(void *ctx, uint64_t size, uint64_t align, uint64_t *bus_addr)
{
    hca_dev_t *d = ctx;
    return d->mem ? hostmem_alloc(d->mem, size, align, bus_addr) : -ENOMEM;
}

static int host_mem_free(void *ctx, uint64_t bus_addr, uint64_t size)
{
    hca_dev_t *d = ctx;
    return d->mem ? hostmem_unmap(d->mem, bus_addr, size) : -EINVAL;
}

static int host_mem_read(void *ctx, uint64_t bus_addr, void *buf, size_t len)
{
    hca_dev_t *d = ctx;
    return d->mem ? hostmem_read(d->mem, bus_addr, buf, len) : bus_read(&d->bus, bus_addr, buf, len);
}

static int host_mem_write(void *ctx, uint64_t bus_addr, const void *buf, size_t len)
{
    hca_dev_t *d = ctx;
    return d->mem ? hostmem_write(d->mem, bus_addr, buf, len) : bus_write(&d->bus, bus_addr, buf, len);
}

static uint64_t host_wait(void *ctx, uint64_t max_cycles, int wake_on_irq)
{
    hca_dev_t *d = ctx;
    uint64_t n = 0;
    if (!wake_on_irq) {
        hca_dev_step(d, max_cycles);
        return max_cycles;
    }
    while (n < max_cycles && !hca_dev_host_irq(d)) {
        uint64_t k = dev_quiet_until(d, d->now + (max_cycles - n)) - d->now; /* nothing can raise it */
        k = k ? k : 1;
        hca_dev_step(d, k);
        n += k;
    }
    return n;
}

static uint64_t host_now(void *ctx) { return hca_dev_cycle(ctx); }

static const hca_host_ops_t dev_host_ops = {
    host_mmio_read, host_mmio_write, host_mem_alloc, host_mem_free, host_mem_read, host_mem_write, host_wait, host_now,
};

hca_host_t hca_dev_host(hca_dev_t *d)
{
    return (hca_host_t){&dev_host_ops, d};
}

/* ---------------------------------------------------------------- engine, bus, log */

const char *hca_dev_engine_name(const hca_dev_t *d)
{
    return d ? d->eng_ops->name : "?";
}

int hca_dev_map_window(hca_dev_t *d, uint64_t base, uint64_t size, bus_t target)
{
    return d ? busmap_map(d->busmap, base, size, target) : -EINVAL;
}

int hca_dev_unmap_window(hca_dev_t *d, uint64_t base)
{
    return d ? busmap_unmap(d->busmap, base) : -EINVAL;
}

evlog_t *hca_dev_log(hca_dev_t *d)
{
    return d ? &d->log : NULL;
}

int hca_dev_xlate_submit(hca_dev_t *d, const xu_req_t *req)
{
    return d && req ? d->eng_ops->probe_submit(d->eng, req) : -EINVAL;
}

size_t hca_dev_xlate_pending(const hca_dev_t *d)
{
    return d ? d->eng_ops->probe_pending(d->eng) : 0;
}

int hca_dev_xlate_collect(hca_dev_t *d, xu_seg_t *seg)
{
    return d && seg ? d->eng_ops->probe_collect(d->eng, seg) : 0;
}

uint64_t hca_dev_xlate_accept_cycle(const hca_dev_t *d, uint64_t n)
{
    return d ? d->eng_ops->probe_accept_cycle(d->eng, n) : UINT64_MAX;
}

int hca_dev_xlate_backpressure(hca_dev_t *d, unsigned req_gap_pct, unsigned rsp_stall_pct, uint64_t seed)
{
    return d ? d->eng_ops->probe_backpressure(d->eng, req_gap_pct, rsp_stall_pct, seed) : -EINVAL;
}

int hca_dev_trace_open(hca_dev_t *d, const char *path, uint64_t from, uint64_t to)
{
    return d ? d->eng_ops->trace_open(d->eng, path, from, to) : -EINVAL;
}

int hca_dev_trace_spans(hca_dev_t *d, const char *path, const uint64_t *spans, size_t n)
{
    return d && d->eng_ops->trace_spans ? d->eng_ops->trace_spans(d->eng, path, spans, n) : -EINVAL;
}

int hca_dev_trace_vars(hca_dev_t *d, const trace_vars_t *vars)
{
    if (!d)
        return -EINVAL;
    return d->eng_ops->trace_vars ? d->eng_ops->trace_vars(d->eng, vars) : -ENOTSUP;
}

uint32_t hca_dev_fw_pc(const hca_dev_t *d, int *running)
{
    if (running)
        *running = d && d->fw_stop != RV32_STOP_WFI && d->fw_stop != RV32_STOP_HALT && d->fw_stop != RV32_STOP_TRAP;
    return d ? rv32_pc(d->cpu) : 0;
}

void hca_dev_trace_close(hca_dev_t *d)
{
    if (d)
        d->eng_ops->trace_close(d->eng);
}

protcheck_t *hca_dev_protcheck(hca_dev_t *d)
{
    return d ? d->pc : NULL;
}

uint64_t hca_dev_violations(const hca_dev_t *d, char *buf, size_t len)
{
    if (buf && len)
        buf[0] = 0;
    return d ? protcheck_format(d->pc, buf, len) : 0;
}

void hca_dev_get_stats(const hca_dev_t *d, dev_engine_stats_t *st)
{
    if (!st)
        return;
    memset(st, 0, sizeof *st);
    if (d)
        d->eng_ops->get_stats(d->eng, st);
}

const char *hca_dev_console(const hca_dev_t *d)
{
    return d ? fwcore_console(d->fc) : "";
}

int hca_dev_fw_health(const hca_dev_t *d, char *why, size_t len)
{
    if (!d)
        return -EINVAL;
    if (d->fw_stop != RV32_STOP_HALT && d->fw_stop != RV32_STOP_TRAP)
        return 0;
    if (why && len)
        fwcore_describe(d->fc, d->fw_stop, why, len);
    return -EFAULT;
}

uint64_t hca_dev_fw_instret(const hca_dev_t *d)
{
    return d ? rv32_instret(d->cpu) : 0;
}

uint64_t hca_dev_fw_busy_cycles(const hca_dev_t *d)
{
    if (!d)
        return 0;
    /* Up to the device's cycle: the core may have run a few cycles past it
       (its last instruction's cycles, or its run-ahead), always busy ones, as
       a sleep never carries it past the device. */
    const uint64_t core = rv32_cycles(d->cpu), busy = core - d->fw_sleep, ahead = core > d->now ? core - d->now : 0;
    return busy > ahead ? busy - ahead : 0;
}

int hca_dev_fw_profile_start(hca_dev_t *d)
{
    if (!d)
        return -EINVAL;
    if (!d->pc_prof && !(d->pc_prof = calloc(HCA_FW_RAM_SIZE / 4, sizeof *d->pc_prof)))
        return -ENOMEM;
    return 0;
}

const uint64_t *hca_dev_fw_profile(const hca_dev_t *d, size_t *words)
{
    if (words)
        *words = d && d->pc_prof ? HCA_FW_RAM_SIZE / 4 : 0;
    return d ? d->pc_prof : NULL;
}

const char *hca_dev_firmware(const hca_dev_t *d)
{
    return d ? d->firmware : NULL;
}

void hca_dev_get_fw_stats(const hca_dev_t *d, hca_dev_fw_stats_t *st)
{
    if (!st)
        return;
    memset(st, 0, sizeof *st);
    if (!d)
        return;
    *st = d->fw_prof;
    st->instret = hca_dev_fw_instret(d);
    st->busy_cycles = hca_dev_fw_busy_cycles(d);
}
