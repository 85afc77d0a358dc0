/* m_xreq.h — the translation request bundle of hca_core (XREQ_W:
 * {tag, rights, remote, key, pd, len, va}), as the block models pass it. */
#ifndef M_XREQ_H
#define M_XREQ_H

#include <stdint.h>

typedef struct m_xreq {
    uint8_t tag, rights, remote;
    uint32_t key, pd, len;
    uint64_t va;
} m_xreq_t;

#endif /* M_XREQ_H */
