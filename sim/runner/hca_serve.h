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

#ifdef __cplusplus
}
#endif
#endif /* HCA_SERVE_H */
