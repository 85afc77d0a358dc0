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
/** Count MRs using a PD: a PD with MRs cannot be deallocated. */
void pd_get(uint32_t pd);
void pd_put(uint32_t pd);

/* Memory keys (mkey.c) */
void mkey_init(void);
unsigned mkey_create(uint64_t in_addr, uint32_t *key);
unsigned mkey_destroy(uint32_t key);
unsigned mkey_query(uint32_t index, uint64_t out_addr);

#endif /* FW_CMD_H */
