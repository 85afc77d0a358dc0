/* fw_port.h — the client of a firmware-port pin group, written once for
 * every harness that has one (the translation unit's xu_pins_t, the device
 * core's core_pins_t): one register access at a time, valid until ready, then
 * wait for rvalid; a posted write (DEV_FW_WRITE_POSTED) ends once taken, its
 * answer dropped in the cycle after.
 *
 * The pins are bound once (fw_port_bind) as pointers into the harness's pin
 * struct; fw_port_sample() runs after every engine cycle. Header-only: it sits
 * on the per-cycle path.
 */
#ifndef FW_PORT_H
#define FW_PORT_H

#include <errno.h>
#include <stdint.h>

#include "dev_engine.h"

typedef enum fw_port_state { FW_PORT_IDLE, FW_PORT_REQ, FW_PORT_WAIT, FW_PORT_DONE } fw_port_state_t;

typedef struct fw_port {
    /* the pins: driven by the client ... */
    uint8_t *valid, *write;
    uint16_t *addr;
    uint32_t *wdata;
    /* ... and by the engine */
    const uint8_t *ready, *rvalid;
    const uint32_t *rdata;
    fw_port_state_t state;
    uint8_t posted; /* the access in flight is a posted write */
    uint8_t drop;   /* a posted write's answer is still to come (the next cycle's rvalid) */
    uint32_t answer;
} fw_port_t;

/** Bind a pin group: fw_port_bind(&port, &pins) for any pin struct whose
 *  firmware-port pins are named fw_valid, fw_ready, fw_write, fw_rvalid,
 *  fw_addr, fw_wdata, fw_rdata. */
#define fw_port_bind(f, p)                                                                                             \
    (*(f) = (fw_port_t){&(p)->fw_valid, &(p)->fw_write, &(p)->fw_addr, &(p)->fw_wdata,                                \
                        &(p)->fw_ready, &(p)->fw_rvalid, &(p)->fw_rdata, FW_PORT_IDLE, 0, 0, 0})

/** Start one access (driven from the next cycle on): write 0 a read, 1 a
 *  write, DEV_FW_WRITE_POSTED a posted write (answered once taken). 0, or
 *  -EBUSY while one is in flight. */
static inline int fw_port_post(fw_port_t *f, int write, uint32_t offset, uint32_t wdata)
{
    if (f->state != FW_PORT_IDLE)
        return -EBUSY;
    *f->valid = 1;
    *f->write = (uint8_t)(write != 0);
    *f->addr = (uint16_t)offset;
    *f->wdata = write ? wdata : 0;
    f->posted = (uint8_t)(write == DEV_FW_WRITE_POSTED);
    f->state = FW_PORT_REQ;
    return 0;
}

/** After the engine's cycle: a posted write's answer dropped, the request
 *  taken (valid falls), the answer seen. */
static inline void fw_port_sample(fw_port_t *f)
{
    if (__builtin_expect(f->state == FW_PORT_IDLE && !f->drop, 1))
        return;
    if (f->drop && *f->rvalid) {
        f->drop = 0; /* the posted write's; an access taken in this cycle is answered in the next */
        if (f->state == FW_PORT_WAIT)
            return;
    }
    if (f->state == FW_PORT_REQ && *f->ready) {
        *f->valid = 0;
        *f->write = 0;
        if (f->posted) {
            f->answer = 0;
            f->drop = 1;
            f->state = FW_PORT_DONE;
        } else {
            f->state = FW_PORT_WAIT; /* the answer comes on a later cycle */
        }
    } else if (f->state == FW_PORT_WAIT && *f->rvalid) {
        f->answer = *f->rdata;
        f->state = FW_PORT_DONE;
    }
}

/** 1 and *rdata (may be NULL) once answered, which ends the access; 0 while
 *  in flight; -ENOENT when none was posted. */
static inline int fw_port_poll(fw_port_t *f, uint32_t *rdata)
{
    if (f->state == FW_PORT_IDLE)
        return -ENOENT;
    if (f->state != FW_PORT_DONE)
        return 0;
    if (rdata)
        *rdata = f->answer;
    f->state = FW_PORT_IDLE;
    return 1;
}

/** Drop the access in flight (reset, timeout). */
static inline void fw_port_abort(fw_port_t *f)
{
    *f->valid = 0;
    *f->write = 0;
    f->state = FW_PORT_IDLE;
    f->drop = 0;
}

/** One access, blocking: post it, then run tick(ctx) (one harness cycle; *now
 *  advances) until it is answered. -ETIMEDOUT after timeout cycles. */
static inline int fw_port_access(fw_port_t *f, void (*tick)(void *), void *ctx, const uint64_t *now, uint64_t timeout,
                                 int write, uint32_t offset, uint32_t wdata, uint32_t *rdata)
{
    int rc = fw_port_post(f, write, offset, wdata);
    if (rc)
        return rc;
    const uint64_t deadline = *now + timeout;
    while ((rc = fw_port_poll(f, rdata)) == 0) {
        if (*now >= deadline) {
            fw_port_abort(f);
            return -ETIMEDOUT;
        }
        tick(ctx);
    }
    return rc < 0 ? rc : 0;
}

#endif /* FW_PORT_H */
