// libsiw: an ibv_destroy_cq refused with EBUSY leaves a CQ whose next poll kills the caller.
//
// Build: cc -o libsiw_destroy_cq_refused libsiw_destroy_cq_refused.c -libverbs
// Run:   ./libsiw_destroy_cq_refused siw0
//
// A QP uses the CQ, so the kernel refuses to destroy it (ibv_create_cq(3): EBUSY, one or
// more QPs still associated). A refused verb changes nothing: the CQ must still poll. The
// poll runs in a child so that a crash is reported, not suffered. Then a second CQ is
// created, the first one's destroy refused again, and the second CQ polled. Expected: both
// polls return 0, exit 0. Seen with libsiw (rdma-core 44): both children are killed by
// SIGSEGV (the second refusal unmapped the second CQ's queue), exit 1.
#include <infiniband/verbs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(x) do { if (!(x)) { perror(#x); exit(2); } } while (0)

// Polls `cq` in a child (a crash is reported, not suffered); 1 when the child was killed.
static int PollsInChild(struct ibv_cq* cq, const char* what) {
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    struct ibv_wc wc;
    _exit(ibv_poll_cq(cq, 1, &wc) == 0 ? 0 : 3);
  }
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  if (WIFSIGNALED(status)) {
    printf("ibv_poll_cq on %s: killed by signal %d (%s)\n", what, WTERMSIG(status), strsignal(WTERMSIG(status)));
    return 1;
  }
  printf("ibv_poll_cq on %s: returned %s\n", what, WEXITSTATUS(status) == 0 ? "0" : "non-zero");
  return WEXITSTATUS(status) == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  const char* name = argc > 1 ? argv[1] : "siw0";
  int n = 0;
  struct ibv_device** list = ibv_get_device_list(&n);
  CHECK(list != NULL);
  struct ibv_context* ctx = NULL;
  for (int i = 0; i < n && ctx == NULL; ++i) {
    if (strcmp(ibv_get_device_name(list[i]), name) == 0) ctx = ibv_open_device(list[i]);
  }
  if (ctx == NULL) {
    fprintf(stderr, "no device %s\n", name);
    return 2;
  }
  struct ibv_pd* pd = ibv_alloc_pd(ctx);
  CHECK(pd != NULL);
  struct ibv_cq* cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
  CHECK(cq != NULL);
  struct ibv_qp_init_attr init = {.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
                                  .cap = {.max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1}};
  struct ibv_qp* qp = ibv_create_qp(pd, &init);
  CHECK(qp != NULL);

  int rc = ibv_destroy_cq(cq);
  printf("ibv_destroy_cq while a QP uses it: %s\n", rc == 0 ? "destroyed (expected EBUSY)" : strerror(rc));
  if (rc == 0) return 1;

  int crashed = PollsInChild(cq, "the CQ whose destroy was refused");

  // A second refusal: libsiw unmaps the same address range again, and whatever the process
  // mapped there since, here the queue of a CQ created after the first refusal, is gone.
  struct ibv_cq* other = ibv_create_cq(ctx, 16, NULL, NULL, 0);
  CHECK(other != NULL);
  rc = ibv_destroy_cq(cq);
  printf("ibv_destroy_cq again: %s\n", rc == 0 ? "destroyed (expected EBUSY)" : strerror(rc));
  if (rc == 0) return 1;
  crashed |= PollsInChild(other, "another CQ, created between the two refusals");
  CHECK(ibv_destroy_cq(other) == 0);
  CHECK(ibv_destroy_qp(qp) == 0);
  CHECK(ibv_destroy_cq(cq) == 0);
  CHECK(ibv_dealloc_pd(pd) == 0);
  ibv_close_device(ctx);
  ibv_free_device_list(list);
  return crashed ? 1 : 0;
}
