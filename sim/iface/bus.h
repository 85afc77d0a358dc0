/* bus.h — what the device reaches memory through: one interface, many memories.
 *
 * A bus is a callback table and its context (rv32emu's riscv_io_t, OpenTitan's
 * ranged_map): the engine's DMA block and the firmware DMA read and write
 * through it and never see a concrete memory. Implementations: host memory
 * (sim/mem/hostmem.h, hostmem_bus()) and the address-window map
 * (sim/mem/busmap.h), which routes each access to the memory whose window
 * holds it (host memory, a peer device's memory, later a TLM initiator).
 *
 * Timing is not the memory's: the DMA blocks charge bus_timing_t per transfer
 * (sim/harness/core.h "Timing").
 */
#ifndef BUS_H
#define BUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** DMA timing of a bus, in device cycles. */
typedef struct bus_timing {
    uint32_t read_latency;    /**< cycles from a read request to its first byte */
    uint32_t write_cost;      /**< cycles a posted write occupies the bus before data */
    uint32_t bytes_per_cycle; /**< bandwidth; >= 1 */
} bus_timing_t;

/** One memory's accesses. An access either moves every byte or none. */
typedef struct bus_ops {
    /** Copy [addr, addr+len) out. 0, or -EFAULT when some byte is not backed (nothing copied). */
    int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
    /** Copy in. 0, or -EFAULT when some byte is not backed (nothing written). */
    int (*write)(void *ctx, uint64_t addr, const void *buf, size_t len);
    /** Optional (NULL: none): the DMA timing of the memory at addr, when it
     *  has its own (a peer device's memory behind its window). 0 and *t
     *  filled, or -ENOENT: the DMA block's own timing applies. */
    int (*timing)(void *ctx, uint64_t addr, bus_timing_t *t);
} bus_ops_t;

/** A bus: a memory behind its callback table. Copyable; ctx is borrowed. */
typedef struct bus {
    const bus_ops_t *ops;
    void *ctx;
} bus_t;

static inline int bus_read(const bus_t *b, uint64_t addr, void *buf, size_t len)
{
    return b->ops->read(b->ctx, addr, buf, len);
}

static inline int bus_write(const bus_t *b, uint64_t addr, const void *buf, size_t len)
{
    return b->ops->write(b->ctx, addr, buf, len);
}

/** Defaults: 250 cycles read round trip (1 us at 250 MHz), 20-cycle posted write, 16 B/cycle. */
static inline bus_timing_t bus_default_timing(void)
{
    bus_timing_t t = {250, 20, 16};
    return t;
}

/** The timing of the memory at addr: its own (bus_ops_t.timing), else dflt. */
static inline bus_timing_t bus_timing_at(const bus_t *b, uint64_t addr, const bus_timing_t *dflt)
{
    bus_timing_t t;
    return b->ops->timing && b->ops->timing(b->ctx, addr, &t) == 0 ? t : *dflt;
}

/** Cycles a transfer of len bytes occupies, uncontended, from request to last byte. */
static inline uint64_t bus_transfer_cycles(const bus_timing_t *t, int write, uint64_t len)
{
    const uint64_t bpc = t->bytes_per_cycle ? t->bytes_per_cycle : 1;
    return (write ? t->write_cost : t->read_latency) + (len + bpc - 1) / bpc;
}

#ifdef __cplusplus
}
#endif
#endif /* BUS_H */
