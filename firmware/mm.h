/* mm.h — the memory-management event service (mm.c) and the part of the key
 * bookkeeping (mkey.c) it shares: the shadow of each MPT slot as the firmware
 * last wrote it. */
#ifndef FW_MM_H
#define FW_MM_H

#include <stdint.h>

#include "hca_abi.h"

/** The firmware's shadow of one MPT slot. */
typedef struct mkey {
    uint8_t in_use;
    uint8_t kind;     /* enum hca_mkey_kind */
    uint8_t key_byte; /* key byte of the current key (a FAST_REG_MR / REG_INDIR_MR
                       * moves it to the WR's), or of the last life when free */
    uint8_t state;    /* enum hca_mkey_state, as the firmware last set it */
    uint32_t pd;
    uint32_t mtt_base, mtt_count; /* MTT space owned: fast_reg max_page_list_len,
                                   * indirect 2 x max_indir_list_len */
} mkey_t;

/** The shadow table (mkey.c): slots 1..mkey_slots-1 are usable, index 0 is
 *  never an MR. Visible so the event service's fast paths index it inline. */
#define MKEY_SLOTS HCA_MPT_ENTRIES_DEFAULT /* bookkeeping capacity (slots beyond are not used) */
extern mkey_t mkeys[MKEY_SLOTS];
extern uint32_t mkey_slots;

/** The shadow of MPT slot index, or NULL when the slot holds no MR. */
static inline mkey_t *mkey_get(uint32_t index)
{
    return index > 0 && index < mkey_slots && mkeys[index].in_use ? &mkeys[index] : 0;
}
/** SEMANTICS.md: REMOTE_WRITE or REMOTE_ATOMIC without LOCAL_WRITE is invalid. */
int mkey_access_valid(uint32_t access);
/** Forget every MR: the state boot leaves (host unit tests; PDs are not counted back). */
void mkey_reset(void);

/** Page-list / KLM-list staging shared by CREATE_MKEY and the registrations
 *  (the firmware runs one of them at a time). */
#define MKEY_LIST_BYTES HCA_FDMA_MAX_LEN
extern uint64_t mkey_list_buf[MKEY_LIST_BYTES / 8];

/** Serve the engine's memory-management events (regs evt) until none is
 *  pending. The block is probed at the first call (never at boot); a device
 *  without it is never touched again. */
void mm_service(void);
/** 1 when the engine has the event queue (probed at the first call, never at
 *  boot): the memory-management work requests are served. */
int mm_events_served(void);
/** Write the service's port-sequencer programs into RAM (at boot: cmd_init;
 *  no device access). */
void mm_init(void);
/** Forget the probe and write the programs again (host unit tests). */
void mm_reset(void);

#endif /* FW_MM_H */
