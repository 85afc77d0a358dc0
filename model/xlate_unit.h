/* xlate_unit.h — the C model of rtl/xlate_unit.sv (model/xu_model.c) as a
 * block of the device model (model/hca_core.c), in m_prim.h's conventions.
 * Standalone it is the translation-unit engine xu_model_ops (xu_engine.h). */
#ifndef XLATE_UNIT_H
#define XLATE_UNIT_H

#include <stdint.h>

#include "hca_abi.h"
#include "xu_engine.h"

typedef struct xu_model xu_model_t;

/** 0, -EINVAL (sizes break xu_params_ok), -ENOMEM; the unit is reset. */
int xlate_unit_create(xu_model_t **m, const xu_params_t *params);
void xlate_unit_destroy(xu_model_t *m);
void xlate_unit_reset(xu_model_t *m);
/** Outputs of p from the state (none depends on an input in the same cycle). */
void xlate_unit_comb(const xu_model_t *m, xu_pins_t *p, uint64_t now);
void xlate_unit_edge(xu_model_t *m, const xu_pins_t *p, uint64_t now);
uint64_t xlate_unit_quiet_until(const xu_model_t *m, uint64_t now);
/** The RTL's fence_wait_o (xu_fw_port in ST_FENCE): a fence waits for in-flight
 *  requests; not in the cycle after an INVALIDATE's write (its ST_INV_WB)
 *  nor in FAST_REG's second cycle (ST_FR_WB). */
int xlate_unit_fence_wait(const xu_model_t *m);
/** evt POP dropped ev at the edge ending this cycle: the registration bank
 *  keeps it at slot (POP.slot) for fwp FAST_REG (the RTL's evt_pop_i). */
void xlate_unit_evt_pop(xu_model_t *m, uint32_t slot, const hca_fw_event_t *ev);
/** hdr.inv_ok for the event ev at the queue's head (the RTL's inv_ok_o, a
 *  cycle later: port D's read of MPT[index(key)]): the MR-state rules of an
 *  invalidation against the MPT as it is before this cycle's edge. */
int xlate_unit_inv_ok(const xu_model_t *m, const hca_fw_event_t *ev);

#endif /* XLATE_UNIT_H */
