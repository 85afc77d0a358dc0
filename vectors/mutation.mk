# vectors/mutation.mk — the mutation matrix (docs/mutation.md): mutants of the
# firmware and of the RTL, each breaking one guarantee, and the race and soak
# scenarios that must fail against them.
#
#   build/firmware/mutants/hcafw_NAME.elf   firmware mutants (firmware/firmware.mk),
#                                           run with `hcasim run --firmware ELF`
#   build/mutants/hcasim_NAME               RTL mutants: hcasim with hca_core
#                                           Verilated with -DDEFINE (its own folder)
#                                           and the model's twins (MUT_MODEL's
#                                           sources with the same -DDEFINE), so
#                                           both engines carry the mutant
#   make mutation-matrix        every file x its mutants on the model engine, and
#                               the RTL slice (vectors/mutation_matrix.py); prints
#                               the kill table
#   make mutation-matrix-full   the same, every pair on the RTL engine too
# `make test` runs one check per file (mutation-kill.FILE).
MUT_DIR := $(BUILD)/mutants

# NAME:DEFINE of each RTL mutant (the defines appear nowhere else in a build).
#   no_fence         xu_fw_port answers INVALIDATE before its in-flight requests finish
#   resp_no_recheck  a remote key that passed once is trusted after (the responder
#                    not re-checking the key per packet)
#   req_no_recheck   a local key that passed once is trusted after (the requester
#                    not re-checking per chunk)
#   klm_no_entry_check  the KLM walker skips rules 2-5 on its entries (test_klm_mutant
#                    links the model's alone)
#   drain_no_wqe_read  ctx DRAIN does not wait for WQE reads (the send engine's
#                    fetch and read-ahead, the responder's RQ fetch)
#   drain_no_cqe_write  ctx DRAIN does not wait for the CQ writer's CQE write
#   resp_cpl_after_reset  the responder hands a receive completion made before
#                    its QP's RESET to the CQ writer after it
#   fr_wqe_ok_always  the send engine sets fw_event.wqe_ok for every FAST_REG_MR
#                    (the firmware's fast path then trusts rules nobody checked)
#   fr_bank_slot     fwp's registration bank keeps a popped event one slot on from
#                    POP.slot (fwp FAST_REG then commits another event's registration)
RTL_MUTANTS := no_fence:HCA_MUTANT_NO_FENCE resp_no_recheck:HCA_MUTANT_RESP_NO_RECHECK \
               req_no_recheck:HCA_MUTANT_REQ_NO_RECHECK klm_no_entry_check:HCA_MUTANT_KLM_NO_ENTRY_CHECK \
               drain_no_wqe_read:HCA_MUTANT_DRAIN_NO_WQE_READ drain_no_cqe_write:HCA_MUTANT_DRAIN_NO_CQE_WRITE \
               resp_cpl_after_reset:HCA_MUTANT_RESP_CPL_AFTER_RESET fr_wqe_ok_always:HCA_MUTANT_FR_WQE_OK_ALWAYS \
               fr_bank_slot:HCA_MUTANT_FR_BANK_SLOT
# The model sources a mutant's define may reach: every RTL mutant compiles
# each with its define (one that does not use it compiles as it is).
MUT_MODEL := xu_model hca_req_send hca_responder hca_cq_writer
RTL_MUTANT_DEFINES := $(foreach m,$(RTL_MUTANTS),$(lastword $(subst :, ,$(m))))
RTL_MUTANT_BINS := $(foreach m,$(RTL_MUTANTS),$(MUT_DIR)/hcasim_$(firstword $(subst :, ,$(m))))

# $(call mut_link,ARCHIVES,LIBS): link $@ from its objects (before libhcasim.a,
# so its members of the same names are never pulled in), libhcasim.a, the
# Verilated archives ARCHIVES (HCASIM_LINK with the mutant's in place) and LIBS.
define mut_link
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CXX) $(SAN_FLAGS) -o $@ $(filter %.o,$^) $(LIBHCASIM) $(1) $(LDLIBS) $(2)
endef
mut_core_a = $(MUT_DIR)/$(1)/verilated/$(CORE_PREFIX)__ALL.a
mut_xu_a   = $(MUT_DIR)/$(1)/verilated_xu/$(VL_PREFIX)__ALL.a

# $(call mut_verilated,NAME,TOP,SUBDIR,SHIM,DEFINE): TOP Verilated with DEFINE
# into build/mutants/NAME/SUBDIR (vl_rules of rtl/rtl.mk), and the shim
# sim/verilated/SHIM.cpp compiled against it as build/mutants/NAME/SHIM.o.
define mut_verilated
$(eval $(call vl_rules,$(2),$(MUT_DIR)/$(1)/$(3),$(5)))
$(MUT_DIR)/$(1)/$(4).o: sim/verilated/$(4).cpp $(MUT_DIR)/$(1)/$(3)/V$(2).h
	@mkdir -p $$(@D)
	$$(call say,CXX,$$< (mutant $(1)))
	$$(Q)$$(CXX) $$(ALL_CXXFLAGS) -I$(MUT_DIR)/$(1)/$(3) $$(VL_SHIM_CXXFLAGS) -c $$< -o $$@
endef

# $(call rtl_mutant,NAME,DEFINE): the mutant core (vl_rules of rtl/rtl.mk),
# its shim, the model twin, and build/mutants/hcasim_NAME linking them in
# place of the real ones.
define rtl_mutant
$(call mut_verilated,$(1),$(CORE_TOP),verilated,core_rtl,$(2))
$(foreach s,$(MUT_MODEL),$(MUT_DIR)/$(1)/$(s).o): $(MUT_DIR)/$(1)/%.o: model/%.c
	@mkdir -p $$(@D)
	$$(call say,CC,$$< (mutant $(1)))
	$$(Q)$$(CC) $$(ALL_CFLAGS) -D$(2) -c $$< -o $$@
$(MUT_DIR)/hcasim_$(1): $(OBJ)/sim/runner/hcasim.o $(MUT_DIR)/$(1)/core_rtl.o \
        $(foreach s,$(MUT_MODEL),$(MUT_DIR)/$(1)/$(s).o) \
        $(LIBHCASIM) $(call mut_core_a,$(1)) $(filter-out $(CORE_MODEL_A),$(filter %.a,$(HCASIM_LINK)))
	$$(call mut_link,$$(patsubst $(CORE_MODEL_A),$(call mut_core_a,$(1)),$$(HCASIM_LINK)),)
endef
$(foreach m,$(RTL_MUTANTS),$(eval $(call rtl_mutant,$(firstword $(subst :, ,$(m))),$(lastword $(subst :, ,$(m))))))

# A mutant the race corpus cannot kill is proven live at the unit level:
# build/mutants/NAME/test_xu is the translation unit's suite over the mutant
# xlate_unit (Verilated with the define) and model twin; the matrix runs the
# cases UNIT_KILLS of vectors/mutation_matrix.py names, which must fail on
# both engines. no_fence: the ctx DRAIN the firmware runs after every
# INVALIDATE waits for the same work (docs/mutation.md), so only the unit's
# own fence test can see it go.
UNIT_MUTANTS := no_fence
UNIT_MUTANT_BINS := $(foreach n,$(UNIT_MUTANTS),$(MUT_DIR)/$(n)/test_xu)
define unit_mutant
$(call mut_verilated,$(1),$(RTL_TOP),verilated_xu,xu_rtl,$(2))
$(MUT_DIR)/$(1)/test_xu: $(OBJ)/testbench/test_xu.o $(MUT_DIR)/$(1)/xu_rtl.o $(MUT_DIR)/$(1)/core_rtl.o \
        $(MUT_DIR)/$(1)/xu_model.o $(LIBHCASIM) $(call mut_core_a,$(1)) $(call mut_xu_a,$(1)) \
        $(filter-out $(CORE_MODEL_A) $(VL_MODEL_A),$(filter %.a,$(HCASIM_LINK)))
	$$(call mut_link,$$(patsubst $(VL_MODEL_A),$(call mut_xu_a,$(1)),$$(patsubst \
	    $(CORE_MODEL_A),$(call mut_core_a,$(1)),$$(HCASIM_LINK))),$$(GTEST_LIBS))
endef
$(foreach m,$(filter $(addsuffix :%,$(UNIT_MUTANTS)),$(RTL_MUTANTS)),\
    $(eval $(call unit_mutant,$(firstword $(subst :, ,$(m))),$(lastword $(subst :, ,$(m))))))

.PHONY: mutants mutation-matrix mutation-matrix-full
# the real image too: the RTL mutants' runs boot it (a fresh `make mutation-matrix` ran none)
mutants: $(RTL_MUTANT_BINS) $(UNIT_MUTANT_BINS) $(FW_MUTANTS) $(FW_IMAGE) $(HCASIM_BIN)

MUT_RUN = $(PYTHON) vectors/mutation_matrix.py --hcasim $(HCASIM_BIN) --mutant-dir $(MUT_DIR) \
          --fw-mutant-dir $(FW_BUILD)/mutants --jobs $(NPROC)
mutation-matrix: mutants
	$(MUT_RUN)
mutation-matrix-full: mutants
	$(MUT_RUN) --rtl all

# One check per file in `make test` (built before the checks run: TEST_BUILDS).
MUT_FILES := $(shell $(PYTHON) vectors/mutation_matrix.py --list)
TEST_BUILDS += mutants
CHECKS += $(addprefix mutation-kill.,$(MUT_FILES)) mutation-unit
mutation-kill.%: mutants
	@$(MUT_RUN) --jobs 1 --only $*
.PHONY: mutation-unit
mutation-unit: mutants
	@$(MUT_RUN) --jobs 1 --unit

-include $(shell find $(MUT_DIR) -name '*.d' 2>/dev/null)
