/* cmd.h — the firmware's mailbox commands (ABI enum cmd_op). Each handler
 * returns a cmd_status and, where the command has one, an immediate output. */
#ifndef FW_CMD_H
#define FW_CMD_H

#include <stdint.h>

#include "hca_abi.h"

/** Read the HCR, run the posted command, write STATUS/OUT_IMM, clear go. */
void cmd_dispatch(void);
/** Set up PD and key bookkeeping from the translation unit's table sizes. */
void cmd_init(void);

/* PDs (pd.c) */
unsigned pd_alloc(uint32_t *pd);
unsigned pd_dealloc(uint32_t pd);
/** 1 when pd is allocated. */
int pd_valid(uint32_t pd);
/** Count MRs and QPs using a PD: a PD in use cannot be deallocated. */
void pd_get(uint32_t pd);
void pd_put(uint32_t pd);

/* Memory keys (mkey.c) */
void mkey_init(void);
unsigned mkey_create(uint64_t in_addr, uint32_t *key);
unsigned mkey_destroy(uint32_t key);
unsigned mkey_query(uint32_t index, uint64_t out_addr);
/** INVALIDATE_MKEY: the fence of DESTROY_MKEY, the MR -> FREE, the slot kept. */
unsigned mkey_invalidate(uint32_t key);
/** 1 when the device is strapped with peer invalidation (regs strap). */
int peer_invalidation_strapped(void);

/* Completion queues and queue pairs (qp.c). A device without a WQE engine
 * answers every one BAD_OP. */
/** CREATE_CQ: in mailbox create_cq_in; *cqn <- the new CQ number. */
unsigned cq_create(uint64_t in_addr, uint32_t *cqn);
/** DESTROY_CQ: BUSY while a QP uses it. */
unsigned cq_destroy(uint32_t cqn);
/** CREATE_QP: in mailbox create_qp_in; *qpn <- the new QP number (RESET). */
unsigned qp_create(uint64_t in_addr, uint32_t *qpn);
/** CONNECT_QP: in_mod = qpn | remote qpn << 16; both to RTS, each the other's peer. */
unsigned qp_connect(uint32_t in_mod);
/** DESTROY_QP: context back to RESET (everything cleared) and fenced like
 *  MODIFY_QP RESET; PD and CQs released, the number free. */
unsigned qp_destroy(uint32_t qpn);
/** MODIFY_QP: IN_MOD = qpn | qp_state << 16, RESET (fenced) or ERROR. */
unsigned qp_modify(uint32_t in_mod);
/** QUERY_DEVICE's queue limits (all 0 without a WQE engine). */
void qp_caps(hca_query_device_out_t *q);
/** QUERY_CQ: the engine's live cq_ctx (overflow flag included) to the out mailbox. */
unsigned cq_query(uint32_t cqn, uint64_t out_addr);
/** QUERY_QP: the engine's live qp_ctx to the out mailbox. */
unsigned qp_query(uint32_t qpn, uint64_t out_addr);
/** Forget every CQ, QP and the probed engine: the state boot leaves (host unit tests). */
void qp_reset(void);

#endif /* FW_CMD_H */
