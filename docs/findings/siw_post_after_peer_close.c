// siw: a WR posted to an RC QP after its peer's process died never completes.
//
// Build: cc -o siw_post_after_peer_close siw_post_after_peer_close.c -lrdmacm -libverbs
// Run:   ./siw_post_after_peer_close 10.77.2.1     (an address of the siw netdev)
//
// A child process accepts an rdma_cm connection from the parent, then is killed (SIGKILL).
// The parent posts an RDMA WRITE once the child is reaped and polls its CQ for 10 s.
// Expected (IBTA Vol 1 10.3.1, ibv_post_send(3)): the WRITE completes in error (flushed, or
// its retries exhausted). Seen on siw (Linux 6.1): no completion at all.
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHECK(x) do { if (!(x)) { perror(#x); exit(2); } } while (0)
enum { kPort = 7471, kSize = 4096 };

static struct rdma_cm_event *expect(struct rdma_event_channel *ch, enum rdma_cm_event_type type) {
  struct rdma_cm_event *ev;
  CHECK(rdma_get_cm_event(ch, &ev) == 0);
  if (ev->event != type) {
    fprintf(stderr, "got %s, expected %s\n", rdma_event_str(ev->event), rdma_event_str(type));
    exit(2);
  }
  return ev;
}

static void add_qp(struct rdma_cm_id *id, struct ibv_cq **cq) {
  struct ibv_pd *pd = ibv_alloc_pd(id->verbs);
  CHECK(pd);
  *cq = ibv_create_cq(id->verbs, 16, NULL, NULL, 0);
  CHECK(*cq);
  struct ibv_qp_init_attr attr = {.send_cq = *cq, .recv_cq = *cq, .qp_type = IBV_QPT_RC,
                                  .cap = {.max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1, .max_recv_sge = 1}};
  CHECK(rdma_create_qp(id, pd, &attr) == 0);
}

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: %s SIW_IPV4_ADDRESS\n", argv[0]); return 2; }
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(kPort)};
  CHECK(inet_pton(AF_INET, argv[1], &addr.sin_addr) == 1);
  int ready[2];
  CHECK(pipe(ready) == 0);
  static char buffer[kSize];

  pid_t child = fork();
  if (child == 0) {  // the peer: listen, accept, hand out its buffer, then wait to be killed
    struct rdma_event_channel *ch = rdma_create_event_channel();
    struct rdma_cm_id *listener, *id;
    struct ibv_cq *cq;
    CHECK(rdma_create_id(ch, &listener, NULL, RDMA_PS_TCP) == 0);
    CHECK(rdma_bind_addr(listener, (struct sockaddr *)&addr) == 0);
    CHECK(rdma_listen(listener, 1) == 0);
    CHECK(write(ready[1], "L", 1) == 1);
    struct rdma_cm_event *ev = expect(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
    id = ev->id;
    rdma_ack_cm_event(ev);
    add_qp(id, &cq);
    struct ibv_mr *mr = ibv_reg_mr(id->pd, buffer, kSize, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    CHECK(mr);
    struct { uint64_t addr; uint32_t rkey; } target = {(uintptr_t)buffer, mr->rkey};
    struct rdma_conn_param param = {.private_data = &target, .private_data_len = sizeof(target),
                                    .responder_resources = 1, .initiator_depth = 1, .retry_count = 7};
    CHECK(rdma_accept(id, &param) == 0);
    rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ESTABLISHED));
    pause();
    return 0;
  }
  char c;
  CHECK(read(ready[0], &c, 1) == 1);
  struct rdma_event_channel *ch = rdma_create_event_channel();
  struct rdma_cm_id *id;
  struct ibv_cq *cq;
  CHECK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0);
  CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)&addr, 2000) == 0);
  rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED));
  CHECK(rdma_resolve_route(id, 2000) == 0);
  rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED));
  add_qp(id, &cq);
  struct ibv_mr *mr = ibv_reg_mr(id->pd, buffer, kSize, IBV_ACCESS_LOCAL_WRITE);
  CHECK(mr);
  struct rdma_conn_param param = {.responder_resources = 1, .initiator_depth = 1, .retry_count = 7};
  CHECK(rdma_connect(id, &param) == 0);
  struct rdma_cm_event *ev = expect(ch, RDMA_CM_EVENT_ESTABLISHED);
  struct { uint64_t addr; uint32_t rkey; } target;
  memcpy(&target, ev->param.conn.private_data, sizeof(target));
  rdma_ack_cm_event(ev);

  CHECK(kill(child, SIGKILL) == 0);
  CHECK(waitpid(child, NULL, 0) == child);  // the peer's QP and TCP connection are gone

  struct ibv_sge sge = {(uintptr_t)buffer, kSize, mr->lkey};
  struct ibv_send_wr wr = {.wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
                           .send_flags = IBV_SEND_SIGNALED, .wr.rdma = {target.addr, target.rkey}}, *bad;
  int rc = ibv_post_send(id->qp, &wr, &bad);
  printf("ibv_post_send after the peer died: %d\n", rc);
  if (rc != 0) return 0;  // refused at post time: also a clean answer
  for (time_t end = time(NULL) + 10; time(NULL) < end;) {
    struct ibv_wc wc;
    if (ibv_poll_cq(cq, 1, &wc) == 1) {
      printf("completion: wr_id %llu, status %s\n", (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
      return wc.status == IBV_WC_SUCCESS ? 1 : 0;
    }
    usleep(1000);
  }
  printf("no completion within 10 s: the WR was neither executed nor flushed\n");
  return 1;
}
