/* hca_client.h — the driver's host boundary (driver/hca_host.h) over a Unix
 * socket to `hcasim serve` (the device in another process; the protocol is
 * hca_wire.h, docs/cosim.md). What a QEMU device model or a user-space driver
 * under test links: the client holds the host memory (a hostmem) and answers
 * the device's DMA into it; BAR0 accesses, waits and the clock are requests
 * to the server; the interrupt line's level comes back as notifications.
 *
 * After the server goes away every request fails (-ENOTCONN; reads give 0)
 * and time runs on locally (a wait passes its max_cycles), so a driver's
 * timeouts end its waits instead of spinning.
 */
#ifndef HCA_CLIENT_H
#define HCA_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "hca_host.h"
#include "hostmem.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hca_client hca_client_t;

/** Connect to the server at path and say HELLO. 0, or a negative errno with
 *  the reason in err (may be NULL). */
int hca_client_connect(hca_client_t **out, const char *path, char *err, size_t errlen);
/** Disconnect (the server drops the device) and free the memory. */
void hca_client_close(hca_client_t *cl);

/** The driver's boundary through this client. Valid while it lives. */
hca_host_t hca_client_host(hca_client_t *cl);
/** The host memory the device's DMA reaches (the client's). */
hostmem_t *hca_client_mem(hca_client_t *cl);
/** The interrupt line's last level told by the server. */
int hca_client_irq(const hca_client_t *cl);
/** The server's engine ("rtl", "model"). */
const char *hca_client_engine(const hca_client_t *cl);
/** 1 while connected. */
int hca_client_connected(const hca_client_t *cl);
/** The last HCA_WIRE_ERROR the server answered (its message), or "". */
const char *hca_client_last_error(const hca_client_t *cl);

/** Counters: requests sent, DMA messages served and their bytes. */
typedef struct hca_client_stats {
    uint64_t requests, dma_reads, dma_writes, dma_bytes, irqs;
} hca_client_stats_t;
void hca_client_get_stats(const hca_client_t *cl, hca_client_stats_t *st);

#ifdef __cplusplus
}
#endif
#endif /* HCA_CLIENT_H */
