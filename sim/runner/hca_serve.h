/* hca_serve.h — `hcasim serve`: the device in its own process, serving one
 * client at a time over a Unix socket (sim/cosim/hca_wire.h, docs/cosim.md).
 * Each connection gets a freshly booted device, destroyed when the client
 * goes (disconnect, or a broken connection): nothing of one client is seen by
 * the next. */
#ifndef HCA_SERVE_H
#define HCA_SERVE_H

#include <stdio.h>

#include "hca_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hca_serve_opts {
    const char *path;        /**< the socket's path (an old socket there is replaced) */
    hca_dev_config_t cfg;    /**< each connection's device (engine, firmware, ...) */
    unsigned clients;        /**< serve this many connections, then return; 0: forever */
    FILE *log;               /**< one line per event (listening, client, gone); NULL: none */
} hca_serve_opts_t;

/** Serve. 0 after o->clients connections; a negative errno when the socket
 *  cannot be made (the reason to o->log). */
int hca_serve(const hca_serve_opts_t *o);

/** One session: a device whose bus is a connection. hca_serve makes one per
 *  connection; a harness that drives connections itself (the protocol
 *  fuzzer) may serve several connections on one session's device. */
typedef struct hca_serve_session hca_serve_session_t;
/** Boot a device on the session's bus. 0, or a negative errno with the reason in err. */
int hca_serve_session_create(hca_serve_session_t **out, const hca_dev_config_t *cfg, char *err, size_t errlen);
/** Serve the connected socket fd (SOCK_SEQPACKET) until the client goes or
 *  breaks the protocol mid-DMA; the per-connection state (HELLO, the
 *  interrupt level told, counters) starts afresh. fd stays open. */
void hca_serve_session_run(hca_serve_session_t *s, int fd);
/** The session's device (its cycle, engine). */
hca_dev_t *hca_serve_session_dev(hca_serve_session_t *s);
/** Counters of the last hca_serve_session_run. */
void hca_serve_session_counts(const hca_serve_session_t *s, uint64_t *requests, uint64_t *dma_msgs, uint64_t *refused);
void hca_serve_session_destroy(hca_serve_session_t *s);

#ifdef __cplusplus
}
#endif
#endif /* HCA_SERVE_H */
