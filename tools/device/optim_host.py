"""The optimizer step alone on one GPU, for the parameter tensors of a real model: how long the host takes to
dispatch torch.optim's update (from the call to its return, the GPU idle before it) and how long until the GPU has
done it, for SGD (momentum 0.9, foreach), AdamW (foreach, PyTorch's default) and AdamW(fused=True). What the step's
host-operation count (workload/optimizer.c) and the GPU passes (nvs_optimizer_us) stand for, measured without the
rest of the step. Prints one JSON line per optimizer. Usage: python3 tools/device/optim_host.py [--model bert-large]
[--reps 20] (--model bert-large, resnet50 or lm290m)"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="bert-large", choices=["bert-large", "resnet50", "lm290m"])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--amp", action="store_true",
                    help="time fp16's GradScaler.step(optimizer) + update() instead (its unscale_, the found_inf check "
                         "and, but for fused AdamW, found_inf.item() before the update: torch/amp/grad_scaler.py)")
    a = ap.parse_args()
    import torch
    import ddp_bench
    if a.model == "bert-large":
        net, _ = ddp_bench.build_bert(0.0)
    elif a.model == "lm290m":
        net = ddp_bench.build_lm(torch, torch.nn, **ddp_bench.LM290M)
    else:
        import torchvision
        net = torchvision.models.resnet50()
    net = net.cuda()
    params = [p for p in net.parameters() if p.requires_grad]
    for p in params:
        p.grad = torch.randn_like(p) * 1e-3
    nel = sum(p.numel() for p in params)
    makers = {
        "sgd": lambda: torch.optim.SGD(params, lr=1e-4, momentum=0.9),
        "adamw": lambda: torch.optim.AdamW(params, lr=1e-4),
        "adamw-fused": lambda: torch.optim.AdamW(params, lr=1e-4, fused=True),
    }
    for name, make in makers.items():
        opt = make()
        if a.amp:
            scaler = torch.amp.GradScaler("cuda")
            scaler.scale(torch.ones((), device="cuda"))  # the scale made, as the first scale(loss) does

            def update():
                scaler.step(opt)
                scaler.update()
        else:
            update = opt.step
        for _ in range(3):  # states made, kernels loaded
            update()
        torch.cuda.synchronize()
        host, total = [], []
        for _ in range(a.reps):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            update()
            t1 = time.perf_counter()
            torch.cuda.synchronize()
            t2 = time.perf_counter()
            host.append((t1 - t0) * 1e6)
            total.append((t2 - t0) * 1e6)
        host.sort()
        total.sort()
        print(json.dumps(dict(model=a.model, optimizer=name, tensors=len(params), params=nel,
                              host_us_median=host[len(host) // 2], total_us_median=total[len(total) // 2],
                              host_us_min=host[0], total_us_min=total[0], reps=a.reps, amp=a.amp,
                              gpu=torch.cuda.get_device_name(), torch=torch.__version__)), flush=True)
        del opt
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
