/* siw: ibv_query_qp returns bytes of uninitialized kernel memory (docs/findings/
 * siw-query-qp-uninitialized.md).
 *
 * Moves an RC QP of DEVICE to INIT, then queries it QUERIES times. siw_query_qp() never
 * writes qp_state, cur_qp_state, sq_psn, rq_psn, dest_qp_num, qkey, timeout, retry_cnt,
 * rnr_retry or min_rnr_timer, and ib_uverbs_query_qp() hands it a kmalloc()ed (not
 * zeroed) struct ib_qp_attr: what user space reads there is whatever the kernel heap held.
 * A correct driver reads INIT back every time, and the same values each time.
 *
 *   cc -Wall -o repro siw_query_qp_uninitialized.c -libverbs && ./repro siw0 1000
 * Exit 1 (FINDING) when qp_state is not INIT or a field the QP never had changes between
 * queries; 0 otherwise; 2 on a set-up failure. */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int die(const char *what) {
  perror(what);
  return 2;
}

int main(int argc, char **argv) {
  const char *name = argc > 1 ? argv[1] : "siw0";
  int queries = argc > 2 ? atoi(argv[2]) : 1000;
  int n = 0, i, finding = 0, not_init = 0, changed = 0;
  struct ibv_device **list = ibv_get_device_list(&n);
  struct ibv_context *ctx = NULL;
  for (i = 0; list && i < n; i++)
    if (strcmp(ibv_get_device_name(list[i]), name) == 0) ctx = ibv_open_device(list[i]);
  if (!ctx) return fprintf(stderr, "no device %s\n", name), 2;
  struct ibv_pd *pd = ibv_alloc_pd(ctx);
  struct ibv_cq *cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
  if (!cq) return die("ibv_alloc_pd/ibv_create_cq");
  struct ibv_qp_init_attr init = {.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
                                  .cap = {.max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1}};
  struct ibv_qp *qp = ibv_create_qp(pd, &init);
  if (!qp) return die("ibv_create_qp");
  struct ibv_qp_attr to_init = {.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
                                .qp_access_flags = IBV_ACCESS_REMOTE_WRITE};
  if ((errno = ibv_modify_qp(qp, &to_init, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)))
    return die("ibv_modify_qp to INIT");
  struct ibv_qp_attr first;
  for (i = 0; i < queries; i++) {
    struct ibv_qp_attr a;
    struct ibv_qp_init_attr ia;
    memset(&a, 0, sizeof a);
    if ((errno = ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE | IBV_QP_SQ_PSN | IBV_QP_RQ_PSN |
                                          IBV_QP_DEST_QPN | IBV_QP_QKEY | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                          IBV_QP_RNR_RETRY | IBV_QP_MIN_RNR_TIMER, &ia)))
      return die("ibv_query_qp");
    if (i == 0) first = a;
    int differs = a.cur_qp_state != first.cur_qp_state || a.sq_psn != first.sq_psn || a.rq_psn != first.rq_psn ||
                  a.dest_qp_num != first.dest_qp_num || a.qkey != first.qkey || a.timeout != first.timeout ||
                  a.retry_cnt != first.retry_cnt || a.rnr_retry != first.rnr_retry ||
                  a.min_rnr_timer != first.min_rnr_timer;
    if (a.qp_state != IBV_QPS_INIT || differs || i == 0) {
      if (a.qp_state != IBV_QPS_INIT) not_init++;
      if (differs) changed++;
      if (not_init + changed <= 5 || i == 0)
        printf("query %d: qp_state %u cur_qp_state %u sq_psn 0x%x rq_psn 0x%x dest_qp_num 0x%x qkey 0x%x timeout %u "
               "retry_cnt %u rnr_retry %u min_rnr_timer %u\n",
               i, a.qp_state, a.cur_qp_state, a.sq_psn, a.rq_psn, a.dest_qp_num, a.qkey, a.timeout, a.retry_cnt,
               a.rnr_retry, a.min_rnr_timer);
    }
  }
  finding = not_init > 0 || changed > 0;
  printf("%s: %d queries after a move to INIT: %d read another qp_state, %d read other values than the first%s\n", name,
         queries, not_init, changed, finding ? "  <-- FINDING" : "");
  ibv_destroy_qp(qp);
  ibv_destroy_cq(cq);
  ibv_dealloc_pd(pd);
  ibv_close_device(ctx);
  ibv_free_device_list(list);
  return finding;
}
