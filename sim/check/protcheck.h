/* protcheck.h — the protection checker: an independent witness of the
 * invariants of SEMANTICS.md ("Invariants the harness checks on every run"),
 * fed by the device's event log (protcheck_attach: what crosses the engine's
 * ports, what the mailbox and the firmware's event service settled). It never
 * touches the device; it only records breaches. The protcheck_* event calls
 * below are what the feed calls; tests may call them directly.
 *
 * Events (all times in device cycles, fed in non-decreasing cycle order):
 *   - every DMA request the DMA block accepts (issue) and, when it touched
 *     memory, its completion (done);
 *   - key validity: a key becomes invalid at the completion (or mailbox
 *     answer, or peer callback return) that invalidated or destroyed it, and
 *     valid again when a registration that carries the same 32-bit key
 *     completes;
 *   - host ranges revoked (peer memory invalidation) and restored;
 *   - link packets: WRITE packets delivered to the engine (rx) and the NAKs
 *     the engine sends (tx).
 *
 * Invariants:
 *   I1  no DMA request through a key is issued while the key is invalid;
 *   I2  no DMA through a key reaches memory (completes) at or after the cycle
 *       the key was invalidated, when it was issued before that cycle; for an
 *       indirect key, also the cycle a key of one of its KLM entries was
 *       invalidated, when the DMA was issued before that invalidation was
 *       requested (rule 7: entries are checked at access time; the checker
 *       does not know which entry a later DMA touches);
 *   I3  no DMA touches a revoked host range from the revocation on;
 *   I4  a WRITE message the responder NAKed with REM_ACCESS_ERR places no
 *       payload (BUF_TO_HOST from a buffer holding one of its packets) issued
 *       after the NAK; and when the failure was on the whole-range check of
 *       the first packet (no invalidation of its R_Key between the first
 *       packet's arrival and the NAK — an invalidation counts from its
 *       request, protcheck_key_invalidating(), to its completion: the device
 *       may fail checks anywhere in between) it placed none at all;
 *   I5  whatever the harness reports as an engine bug (protcheck_report()),
 *       e.g. a malformed DMA request;
 *   I6  no DMA of a QP (dma_req.qpn: a key-checked access, a read of its
 *       send or receive queue's WQEs — fetch or read-ahead —, or the write of
 *       one of its completions, by the CQE's qpn) is issued after
 *       its DESTROY_QP or MODIFY_QP RESET returned, until it is connected
 *       again, and none issued before touches memory (a write lands, a read
 *       is served, or a bus error answers it: it was on the bus) after it
 *       returned: the driver may unmap or free the QP's rings and buffers at
 *       once.
 * A breach is recorded with its cycle, key, host address and a one-line
 * reason; checking goes on.
 *
 * Limits: I4 follows the current WRITE message of each (responder QP,
 * requester QP) pair (the engine runs one message per QP at a time); a
 * payload buffer is attributed to the last WRITE packet delivered in it.
 */
#ifndef PROTCHECK_H
#define PROTCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "evlog.h"
#include "hca_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct protcheck protcheck_t;

/** A cycle a breach does not have (e.g. the landing of one caught at issue). */
#define PROTCHECK_NONE UINT64_MAX

/** One breach, with the cycles a race is read from (waves markers, --json). */
typedef struct protcheck_violation {
    uint64_t cycle; /**< when it was detected (the offending event's cycle) */
    uint32_t key;   /**< the key involved, 0 when none */
    uint64_t addr;  /**< the host address involved, 0 when none */
    uint32_t qpn;   /**< the QP whose DMA it was (dma_req.qpn; I4: the responder), 0 when none */
    uint64_t issue_cycle;     /**< the offending DMA was issued (its key checked before), or NONE */
    uint64_t inval_req_cycle; /**< the invalidation (fence, revocation) it raced was requested, or NONE */
    uint64_t inval_cycle;     /**< ... and completed, or NONE */
    uint64_t land_cycle;      /**< the DMA reached memory, or NONE (caught at issue) */
    char reason[480];   /* room for a lockstep diff of two DMA requests */
} protcheck_violation_t;

/** Breaches kept in full; later ones are counted only. */
#define PROTCHECK_KEEP 256u

typedef struct protcheck_stats {
    uint64_t dma_issued;    /**< DMA requests seen */
    uint64_t dma_keyed;     /**< of which with a non-zero key */
    uint64_t invalidations; /**< key invalidation events */
    uint64_t validations;   /**< key (re)validation events */
    uint64_t write_pkts;    /**< WRITE packets delivered */
    uint64_t access_naks;   /**< NAK REM_ACCESS_ERR sent */
    uint64_t refused_after_inv; /**< of which for a WRITE or READ message whose R_Key (or the key of one of
                                     its KLM entries) had an invalidation requested at or after the message's
                                     first packet (READ_REQ) arrived and before the NAK: a chunk the responder
                                     refused because the key was invalidated under the running message */
    uint64_t qp_fences;     /**< QP destroy / reset fences followed */
    uint64_t violations;    /**< breaches, kept or not */
} protcheck_stats_t;

/** 0 or -ENOMEM / -EINVAL. */
int protcheck_create(protcheck_t **out);
/** Learn from log from now on (subscribe). 0, -EINVAL, -ENOSPC (the log is full). */
int protcheck_attach(protcheck_t *pc, evlog_t *log);
void protcheck_detach(protcheck_t *pc, evlog_t *log);
void protcheck_destroy(protcheck_t *pc);
/** Forget every event and breach (a device reset). */
void protcheck_reset(protcheck_t *pc);

/** A DMA request accepted by the DMA block in cycle `cycle`. Returns 1 when
 *  it broke I1/I3 already (pass it back to protcheck_dma_done), else 0. */
int protcheck_dma_issue(protcheck_t *pc, uint64_t cycle, const hca_dma_req_t *req);
/** The request issued in issue_cycle completed in `cycle`; transferred = 1
 *  when bytes moved (0 for a bus error — I6 still applies: it was on the bus —
 *  or a refused request, which the event-log feed never passes). flagged = what
 *  protcheck_dma_issue returned, so one request is reported once. */
void protcheck_dma_done(protcheck_t *pc, uint64_t issue_cycle, uint64_t cycle, const hca_dma_req_t *req,
                        int transferred, int flagged);

/** Key invalid from `cycle` on; `why` (a static string, e.g. "DESTROY_MKEY") names the event. */
void protcheck_key_invalid(protcheck_t *pc, uint64_t cycle, uint32_t key, const char *why);
/** An invalidation of key was requested in `cycle` (e.g. the DESTROY_MKEY
 *  command was posted; on = 1) and is not complete yet: checks through the key
 *  may fail from now on, before protcheck_key_invalid() (I4 counts the whole
 *  span as the invalidation). on = 0 withdraws the request (the command
 *  failed: the key stays as it was). */
void protcheck_key_invalidating(protcheck_t *pc, uint64_t cycle, uint32_t key, int on);
/** Key valid again from `cycle` on (a registration carrying this key completed). */
void protcheck_key_valid(protcheck_t *pc, uint64_t cycle, uint32_t key);
/** Indirect key `key` maps onto KLM entries with these keys (a REG_INDIR_MR
 *  completed; entries copied, replacing any earlier list): from now on an
 *  invalidation of one of them (or, nested, of an entry of theirs) fences
 *  `key` as well — I2 for every DMA through `key` issued before that
 *  invalidation was requested. */
void protcheck_key_depends(protcheck_t *pc, uint64_t cycle, uint32_t key, const uint32_t *entries, size_t n);

/** Host range [addr, addr+len) revoked from `cycle` on (a peer invalidation returned). */
int protcheck_range_revoke(protcheck_t *pc, uint64_t cycle, uint64_t addr, uint64_t len, const char *why);
/** The range may be touched again (e.g. mapped anew). */
void protcheck_range_restore(protcheck_t *pc, uint64_t addr, uint64_t len);

/** QP qpn fenced in `cycle` (DESTROY_QP or MODIFY_QP RESET answered; `why`, a
 *  static string, names it): a DMA of that QP (dma_req.qpn) issued from then
 *  until protcheck_qp_live, or issued before and reaching memory after, is a
 *  breach (I6). */
void protcheck_qp_fenced(protcheck_t *pc, uint64_t cycle, uint32_t qpn, const char *why);
/** QP qpn may do DMA again from `cycle` on (connected anew). */
void protcheck_qp_live(protcheck_t *pc, uint64_t cycle, uint32_t qpn);

/** A packet delivered to the engine's rx port / accepted from its tx port. */
void protcheck_pkt_rx(protcheck_t *pc, uint64_t cycle, const hca_pkt_t *pkt);
void protcheck_pkt_tx(protcheck_t *pc, uint64_t cycle, const hca_pkt_t *pkt);

/** Record a breach found by the harness itself (I5), printf-style reason. */
void protcheck_report(protcheck_t *pc, uint64_t cycle, uint32_t key, uint64_t addr, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/** Breaches so far (kept or not). */
uint64_t protcheck_count(const protcheck_t *pc);
/** Breach i (0-based, i < min(count, PROTCHECK_KEEP)): 0, or -ENOENT. */
int protcheck_get(const protcheck_t *pc, size_t i, protcheck_violation_t *v);
/** The kept breaches, one line each ("cycle C key 0xK addr 0xA: reason\n"),
 *  NUL-terminated and cut to len. Returns the count (as protcheck_count). */
uint64_t protcheck_format(const protcheck_t *pc, char *buf, size_t len);
void protcheck_get_stats(const protcheck_t *pc, protcheck_stats_t *st);

#ifdef __cplusplus
}
#endif
#endif /* PROTCHECK_H */
