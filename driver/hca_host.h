/* hca_host.h — everything the driver needs from the machine it runs on, and
 * nothing more: the device's BAR0 (MMIO), device-visible memory (what a
 * kernel driver gets from dma_alloc_coherent), and a way to let time pass
 * until the device's interrupt or a deadline.
 *
 * The driver is written against this table only (a Linux driver against
 * ib_device_ops and the DMA API; SimBricks' driver against the PCI window), so
 * the same driver runs on whatever implements it: the in-process simulator
 * (hca_dev_host(), sim/device/hca_dev.h), and later the SystemC wrapper or a
 * device in another process. It depends on the ABI (hca_abi.h) alone.
 *
 * Times are device cycles. int returns are 0 or a negative errno.
 */
#ifndef HCA_HOST_H
#define HCA_HOST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hca_host_ops {
    /** 32-bit BAR0 access at offset (HCA_HOST_*_OFFSET + register). Takes
     *  no device time. -EINVAL: no register there (reads 0). A doorbell may
     *  answer -ENOSPC (its queue is full) or -EOPNOTSUPP (the device serves
     *  no queues). */
    int (*mmio_read)(void *ctx, uint32_t offset, uint32_t *val);
    int (*mmio_write)(void *ctx, uint32_t offset, uint32_t val);

    /** Device-visible memory: size bytes, zeroed, at a fresh bus address
     *  aligned to align (a power of two). -ENOMEM. */
    int (*mem_alloc)(void *ctx, uint64_t size, uint64_t align, uint64_t *bus_addr);
    /** Give back what mem_alloc handed out (the device must no longer use it). */
    int (*mem_free)(void *ctx, uint64_t bus_addr, uint64_t size);
    /** CPU access to device-visible memory. -EFAULT when some byte is not
     *  allocated (nothing copied). */
    int (*mem_read)(void *ctx, uint64_t bus_addr, void *buf, size_t len);
    int (*mem_write)(void *ctx, uint64_t bus_addr, const void *buf, size_t len);

    /** Let up to max_cycles device cycles pass; with wake_on_irq, stop early
     *  at the end of the first cycle in which the interrupt line is high
     *  (returns at once, 0 cycles, if it already is). Returns the cycles that
     *  passed. */
    uint64_t (*wait)(void *ctx, uint64_t max_cycles, int wake_on_irq);
    /** The device's cycle counter. */
    uint64_t (*now)(void *ctx);
} hca_host_ops_t;

/** A host: the table and its context. Copyable; both borrowed. */
typedef struct hca_host {
    const hca_host_ops_t *ops;
    void *ctx;
} hca_host_t;

#ifdef __cplusplus
}
#endif
#endif /* HCA_HOST_H */
