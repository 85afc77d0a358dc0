# sim/vp — the example SystemC virtual platform (vp_platform.h) and
# hcasim-vp, which runs a scenario file on it (docs/cosim.md). Links SystemC
# (its library holds main() and calls sc_main) besides the simulator.
VP_BIN := $(BIN)/hcasim-vp
ALL_TARGETS += $(VP_BIN)
$(VP_BIN): $(OBJ)/sim/vp/hcasim_vp.o $(SYSTEMC_OBJS) $(HCASIM_LIBS)
	$(call link_bin,$(SYSTEMC_LIBS))

# check-vp: hcasim-vp prints what hcasim run prints (completions, statuses,
# check_mem verdicts; cycle counts aside) on both engines, over a
# representative set of directed scenarios: every op family (verbs, errors,
# memory management, KLM, peer memory, a device configuration).
VP_CHECK_VECTORS := $(addprefix vectors/directed/,err_rem_access_write.jsonl write_pages.jsonl read_pages.jsonl \
    send_sges.jsonl err_rnr.jsonl mm_send_inv_success.jsonl mm_frmr_err_bounds.jsonl klm_iser_sectors.jsonl \
    peer_write_read_seams.jsonl query_device_small_tables.jsonl stale_key_after_dereg.jsonl host_memory.jsonl)
.PHONY: check-vp
check-vp: $(VP_BIN) $(HCASIM_BIN) $(BUILD)/firmware/hcafw.elf
	$(call say,CHECK,hcasim-vp against hcasim run)
	$(Q)$(PYTHON) testbench/check_vp.py $(HCASIM_BIN) $(VP_BIN) $(VP_CHECK_VECTORS)
CHECKS += check-vp
