# sim/cosim — the socket protocol (hca_wire.h) and its C client library
# (hca_client.h: hca_host_t over the socket), docs/cosim.md. In libhcasim for
# the tests and benches; libhcaclient.a holds the client alone (with the host
# memory it serves DMA from) for a program that runs a driver against
# `hcasim serve` without linking the simulator.
COSIM_SRCS := sim/cosim/hca_wire.c sim/cosim/hca_client.c
HCASIM_SRCS += $(COSIM_SRCS) sim/runner/hca_serve.c

LIBHCACLIENT := $(LIB)/libhcaclient.a
ALL_TARGETS += $(LIBHCACLIENT)
$(LIBHCACLIENT): $(patsubst %.c,$(OBJ)/%.o,$(COSIM_SRCS) sim/mem/hostmem.c)
	@mkdir -p $(@D)
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^
