// cosim_workload.h — one driver session written against the host boundary
// only (driver/hca_host.h), so that the same session runs in process
// (hca_dev_host), over TLM (hcasim-vp's platform) and over the socket
// (hca_client): open, QUERY_DEVICE, PD, an MR, a loopback QP pair and an RDMA
// WRITE of `bytes` whose payload is read back. What it saw, cycles included,
// is recorded for comparing boundaries (test_cosim.cc) and timing them
// (bench_cosim.cc).
#ifndef COSIM_WORKLOAD_H
#define COSIM_WORKLOAD_H

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "hca_client.h"
#include "hca_host.h"
#include "hcadrv.h"

struct cosim_outcome {
    int open = 1, query = 1, pd = 1, alloc = 1, mr = 1, cq = 1, qp = 1, connect = 1, post = 1, polled = 0;
    hcadrv_device_attr_t attr{};
    uint32_t pdn = 0, lkey = 0, rkey = 0, qpn_a = 0, qpn_b = 0;
    uint64_t buf = 0;
    hcadrv_wc_t wc{};
    bool payload_equal = false;
    uint64_t t_open = 0, t_setup = 0, t_cqe = 0, t_end = 0; // the host's cycle after each step
};

// Runs on h; bytes <= 1 MiB. The outcome's fields say how far it got.
inline void cosim_workload(const hca_host_t &h, cosim_outcome &o, uint32_t bytes)
{
    const uint32_t RW = HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ | HCA_ACCESS_REMOTE_WRITE;
    hcadrv_t *drv = nullptr;
    if ((o.open = hcadrv_open(&drv, &h)))
        return;
    o.t_open = h.ops->now(h.ctx);
    o.query = hcadrv_query_device(drv, &o.attr);
    o.pd = hcadrv_alloc_pd(drv, &o.pdn);
    const uint64_t size = 2ull * ((bytes + 4095) & ~4095u);
    hcadrv_mr_t mr{};
    hcadrv_cq_t cq{};
    hcadrv_qp_t a{}, b{};
    o.alloc = h.ops->mem_alloc(h.ctx, size, 4096, &o.buf);
    if (!o.pd && !o.alloc)
        o.mr = hcadrv_reg_mr(drv, o.pdn, o.buf, size, o.buf, RW, 12, &mr);
    o.lkey = mr.lkey;
    o.rkey = mr.rkey;
    if (!o.mr)
        o.cq = hcadrv_create_cq(drv, 64, &cq);
    hcadrv_qp_attr_t at = {o.pdn, &cq, &cq, 64, 64, 7, 500, 0};
    if (!o.cq && !(o.qp = hcadrv_create_qp(drv, &at, &a)))
        o.qp = hcadrv_create_qp(drv, &at, &b);
    o.qpn_a = a.qpn;
    o.qpn_b = b.qpn;
    if (!o.qp)
        o.connect = hcadrv_connect(drv, &a, &b);
    if (!o.connect) {
        std::vector<uint8_t> src(bytes), dst(bytes);
        for (size_t i = 0; i < src.size(); i++)
            src[i] = (uint8_t)(i * 7 + 3);
        h.ops->mem_write(h.ctx, o.buf, src.data(), src.size());
        o.t_setup = h.ops->now(h.ctx);
        hcadrv_send_wr_t wr{};
        wr.wr_id = 42;
        wr.opcode = HCA_WR_OPCODE_RDMA_WRITE;
        wr.flags = HCA_SEND_FLAGS_SIGNALED;
        wr.num_sge = 1;
        wr.sge[0] = {o.buf, bytes, mr.lkey};
        wr.remote_addr = o.buf + size / 2;
        wr.rkey = mr.rkey;
        if (!(o.post = hcadrv_post_send(drv, &a, &wr))) {
            for (int i = 0; i < 200000 && o.polled == 0; i++) {
                h.ops->wait(h.ctx, 64, 0);
                o.polled = hcadrv_poll_cq(drv, &cq, &o.wc, 1);
            }
            o.t_cqe = h.ops->now(h.ctx);
            h.ops->mem_read(h.ctx, o.buf + size / 2, dst.data(), dst.size());
            o.payload_equal = src == dst;
        }
    }
    hcadrv_close(drv);
    o.t_end = h.ops->now(h.ctx);
}

// The folder of the running binary (hcasim is beside it in a build tree).
inline std::string cosim_exe_dir()
{
    char b[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", b, sizeof b - 1);
    b[n > 0 ? n : 0] = 0;
    std::string s(b);
    return s.substr(0, s.rfind('/'));
}

// `hcasim serve --socket path --engine engine [--clients clients]` in a child
// process (its log to /dev/null); SIGTERM and reaped by the destructor.
struct cosim_server {
    pid_t pid = -1;
    std::string path;
    // firmware: an image for --firmware, or nullptr.
    cosim_server(const std::string &path_, const char *engine, unsigned clients = 0, const char *firmware = nullptr)
        : path(path_)
    {
        const std::string bin = cosim_exe_dir() + "/hcasim", n = std::to_string(clients);
        std::vector<const char *> argv = {"hcasim", "serve", "--socket", path.c_str(), "--engine", engine};
        if (clients) {
            argv.push_back("--clients");
            argv.push_back(n.c_str());
        }
        if (firmware) {
            argv.push_back("--firmware");
            argv.push_back(firmware);
        }
        argv.push_back(nullptr);
        pid = fork();
        if (pid == 0) {
            if (!freopen("/dev/null", "w", stdout))
                _exit(127);
            execv(bin.c_str(), const_cast<char *const *>(argv.data()));
            _exit(127);
        }
    }
    // A client, once the server listens (up to 10 s: it boots nothing before a client comes).
    int connect(hca_client_t **cl, std::string *why = nullptr) const
    {
        char err[256] = "";
        int rc = -ECONNREFUSED;
        for (int i = 0; i < 500 && (rc == -ECONNREFUSED || rc == -ENOENT); i++)
            if ((rc = hca_client_connect(cl, path.c_str(), err, sizeof err)) == -ECONNREFUSED || rc == -ENOENT)
                usleep(20000);
        if (why)
            *why = err;
        return rc;
    }
    ~cosim_server()
    {
        if (pid > 0) {
            kill(pid, SIGTERM);
            int st;
            waitpid(pid, &st, 0);
        }
    }
};

#endif // COSIM_WORKLOAD_H
