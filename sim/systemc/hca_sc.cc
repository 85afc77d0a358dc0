// hca_sc.cc — see hca_sc.h.
#include "hca_sc.h"

#include <cerrno>
#include <cstring>

using namespace sc_core;

hca_sc::hca_sc(sc_module_name name, dev_engine_kind_t engine, const sc_time &period)
    : hca_sc(name, [engine] {
          hca_dev_config_t c;
          std::memset(&c, 0, sizeof c);
          c.engine = engine;
          return c;
      }(), period)
{
}

hca_sc::hca_sc(sc_module_name name, const hca_dev_config_t &cfg, const sc_time &period)
    : sc_module(name), bar0("bar0"), dma("dma"), irq("irq"), period_(period)
{
    static const bus_ops_t ops = {dma_read, dma_write, nullptr};
    bar0.register_b_transport(this, &hca_sc::b_transport);
    bar0.register_get_direct_mem_ptr(this, &hca_sc::get_direct_mem_ptr);
    char err[256] = "";
    if (hca_dev_create_on_bus(&dev_, &cfg, bus_t{&ops, this}, err, sizeof err))
        SC_REPORT_ERROR(this->name(), err[0] ? err : "hca_dev_create_on_bus failed");
    SC_HAS_PROCESS(hca_sc);
    SC_THREAD(run);
}

hca_sc::~hca_sc()
{
    hca_dev_destroy(dev_);
}

// One device cycle at a time, so that the interrupt line moves at its cycle,
// except through quiet cycles (hca_dev_quiet_cycles: nothing, the line
// included, can change in them), which are stepped at once up to the end of
// the quantum; the quantum keeper yields to the other processes once per
// quantum.
void hca_sc::run()
{
    qk_.reset();
    t_dev_ = sc_time_stamp();
    bool line = false;
    irq.write(false);
    for (;;) {
        uint64_t n = hca_dev_quiet_cycles(dev_);
        if (n > 1) { /* never past the quantum: the device stays at most one ahead */
            const sc_time left = tlm::tlm_global_quantum::instance().compute_local_quantum() - qk_.get_local_time();
            const uint64_t room = left > SC_ZERO_TIME ? (uint64_t)(left / period_) : 0;
            n = n < room ? n : room;
        }
        n = n ? n : 1;
        hca_dev_step(dev_, n);
        t_dev_ += period_ * (double)n;
        // A target that wait()ed in a DMA moved simulated time past the device.
        qk_.set(t_dev_ > sc_time_stamp() ? t_dev_ - sc_time_stamp() : SC_ZERO_TIME);
        const bool now = hca_dev_host_irq(dev_) != 0;
        if (now != line) {
            qk_.sync();
            irq.write(line = now);
        } else if (qk_.need_sync()) {
            qk_.sync();
        }
    }
}

void hca_sc::b_transport(tlm::tlm_generic_payload &gp, sc_time &)
{
    gp.set_dmi_allowed(false);
    const uint64_t addr = gp.get_address();
    if (gp.get_data_length() != 4 || gp.get_streaming_width() < 4) {
        gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        return;
    }
    if (gp.get_byte_enable_ptr()) {
        gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        return;
    }
    if ((addr & 3) || addr > UINT32_MAX) {
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    uint32_t v = 0;
    int rc = 0;
    switch (gp.get_command()) {
    case tlm::TLM_READ_COMMAND:
        rc = hca_dev_mmio_read(dev_, (uint32_t)addr, &v);
        if (!rc)
            std::memcpy(gp.get_data_ptr(), &v, 4);
        break;
    case tlm::TLM_WRITE_COMMAND:
        std::memcpy(&v, gp.get_data_ptr(), 4);
        rc = hca_dev_mmio_write(dev_, (uint32_t)addr, v);
        break;
    default: // TLM_IGNORE_COMMAND
        break;
    }
    gp.set_response_status(rc == 0         ? tlm::TLM_OK_RESPONSE
                           : rc == -EINVAL ? tlm::TLM_ADDRESS_ERROR_RESPONSE
                                           : tlm::TLM_GENERIC_ERROR_RESPONSE);
}

int hca_sc::dma_access(tlm::tlm_command cmd, uint64_t addr, void *buf, size_t len)
{
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(addr);
    gp.set_data_ptr(static_cast<unsigned char *>(buf));
    gp.set_data_length((unsigned)len);
    gp.set_streaming_width((unsigned)len);
    gp.set_byte_enable_ptr(nullptr);
    gp.set_dmi_allowed(false);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time delay = qk_.get_local_time(); // the device's cycle, as an offset
    dma->b_transport(gp, delay);
    return gp.is_response_ok() ? 0 : -EFAULT;
}

int hca_sc::dma_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    return static_cast<hca_sc *>(ctx)->dma_access(tlm::TLM_READ_COMMAND, addr, buf, len);
}

int hca_sc::dma_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    return static_cast<hca_sc *>(ctx)->dma_access(tlm::TLM_WRITE_COMMAND, addr, const_cast<void *>(buf), len);
}
