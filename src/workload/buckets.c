/* DDP bucket assignment: see buckets.h for the rule and its source. */
#include "workload/buckets.h"

int nvs_ddp_buckets(const nvs_layer *layers, int nlayers, double grad_elem_bytes, double first_cap_bytes,
                    double cap_bytes, nvs_ddp_bucket *out, int maxb, int *bucket_of_layer)
{
    int nb = 0;
    nvs_ddp_bucket cur = {0, -1, -1, 0};
    for (int i = nlayers - 1; i >= 0; i--) {
        if (bucket_of_layer) bucket_of_layer[i] = -1;
        if (layers[i].params <= 0) continue;
        if (cur.nlayers == 0) cur.first_layer = i;
        cur.bytes += layers[i].params * grad_elem_bytes;
        cur.last_layer = i;
        cur.nlayers++;
        if (bucket_of_layer) bucket_of_layer[i] = nb;
        if (cur.bytes >= (nb == 0 ? first_cap_bytes : cap_bytes)) {
            if (nb < maxb) out[nb] = cur;
            nb++;
            cur = (nvs_ddp_bucket){0, -1, -1, 0};
        }
    }
    if (cur.nlayers > 0) {
        if (nb < maxb) out[nb] = cur;
        nb++;
    }
    return nb;
}
