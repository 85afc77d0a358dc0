# model/ — the C model of the device core (the "model" engine): one file per
# RTL module (m_prim.h: the conventions), hca_core.c the top.
MODEL_SRCS := model/xu_model.c model/hca_core.c model/hca_ctx.c model/hca_evt.c model/hca_pbuf.c \
              model/hca_xarb.c model/hca_cq_writer.c model/hca_requester.c model/hca_qfifo.c model/hca_req_send.c \
              model/hca_req_resp.c model/hca_sge_mover.c model/hca_responder.c model/hca_resp_place.c
HCASIM_SRCS += $(MODEL_SRCS)

# Profile-guided optimization (PGO) of the model (docs/model.md "Speed"), as
# the RTL core's (rtl/rtl.mk VL_PGO): model/ compiled instrumented into
# $(MODEL_PGO_DIR), linked with bench_verbs and the rest of libhcasim's
# objects into a trainer that runs bench_verbs's traffic on the model
# (--model-cps; the Verilated RTL is not linked: model/pgo_no_rtl.c), then
# model/ compiled again with its counts. Only the compiler's choices change
# (inlining, block order, unrolling), never what the model computes.
# MODEL_PGO=0, and any sanitizer build (SAN_FLAGS): one plain compile.
MODEL_PGO ?= 1
ifeq ($(MODEL_PGO)$(SAN_FLAGS),1)
MODEL_PGO_DIR   := $(OBJ)/model-pgo
MODEL_GEN_OBJS  := $(patsubst %.c,$(MODEL_PGO_DIR)/%.o,$(MODEL_SRCS))
MODEL_TRAINER   := $(MODEL_PGO_DIR)/train
MODEL_PROFILE   := $(MODEL_PGO_DIR)/profile.stamp
$(MODEL_PGO_DIR)/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC,$< (profile: generate))
	$(Q)$(CC) $(ALL_CFLAGS) -fprofile-generate -fprofile-update=single -c $< -o $@
# The trainer's other objects (libhcasim's but model/ and the RTL shims) are
# its prerequisites in testbench/bench.mk, where every fragment has added
# its sources.
$(MODEL_TRAINER): $(MODEL_GEN_OBJS) $(MODEL_PGO_DIR)/model/pgo_no_rtl.o
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CXX) -fprofile-generate -o $@ $(filter %.o,$^) $(LDLIBS)
$(MODEL_PROFILE): $(MODEL_TRAINER) $(FW_IMAGE)
	$(call say,TRAIN,model/ (bench_verbs --model-cps))
	$(Q)rm -f $(MODEL_PGO_DIR)/model/*.gcda
	$(Q)$(MODEL_TRAINER) --model-cps >/dev/null
	$(Q)touch $@
# -dumpdir/-dumpbase name the counts of the instrumented object of the same
# source ($(MODEL_PGO_DIR)/model/NAME.gcda).
$(OBJ)/model/%.o: model/%.c $(MODEL_PROFILE)
	@mkdir -p $(@D)
	$(call say,CC,$< (profile: use))
	$(Q)$(CC) $(ALL_CFLAGS) -fprofile-use -fprofile-partial-training -Wno-missing-profile \
	    -dumpdir $(MODEL_PGO_DIR)/model/ -dumpbase $* -MF $(@:.o=.d) -c $< -o $@
endif
