/*
 * 04_streams_overlap/model.c - the pipeline's model: how fast N chunks over N streams can be,
 * from each stage measured alone at that chunk size, so that what every operation costs
 * beyond its bandwidth (a copy's set-up, a kernel's launch; step 1 shows them) is in it, and
 * so is a kernel too small to fill the GPU (several such kernels can then run side by side).
 *
 * The pipeline: chunk i is copied in, computed, copied out, in stream i. Three resources work
 * at once: the copy engine into the device, the SMs, the copy engine out of it. The run
 * cannot end before
 *   - every copy in is done (copies out running beside them, sharing the link), then the
 *     last chunk's kernel, then its copy out:            Hs + k1 + d1
 *   - the first chunk is in, every kernel has run, the last chunk is out:  h1 + K + d1
 *   - the first chunk is in and computed, every copy out is done:          h1 + k1 + Ds
 * and the model's ideal is the largest of the three, plus two hand-offs: each path holds one
 * chunk's copy in -> kernel and kernel -> copy out, where an engine waits for the one before it
 * (step 2 measures a hand-off: the sequential run minus the stages' sum, over two). One chunk:
 * the sum of the stages and the two hand-offs.
 * With CUDA_LAUNCH_BLOCKING=1 (each launch waits for its kernel) or one hardware queue the
 * model is still a bound: the run cannot be faster, but it may be slower (steps 3, 4 and 6).
 * Not in the model: the host's time to issue every call, and the hand-offs of the other chunks
 * where they are not hidden behind other work; they matter when a chunk's operations are short
 * (step 3 then judges the model as a bound only).
 */
#include <stdio.h>

#include "lesson.h"

static double max3(double a, double b, double c)
{
    double m = a > b ? a : b;
    return m > c ? m : c;
}

bool measure_model(int chunks, double handoff, struct model *m)
{
    double s[4];
    m->chunks = chunks;
    m->handoff = handoff;
    if (!time_split(OP_H2D, chunks, false, L.reps, &m->H, NULL, &s[0]) ||
        !time_split(OP_KERNEL, chunks, false, L.reps, &m->K, NULL, &s[1]) ||
        !time_split(OP_D2H, chunks, false, L.reps, &m->D, NULL, &s[2]))
        return false;
    m->spread = max3(s[0], s[1], s[2]);
    m->serial = m->H + m->K + m->D;
    if (chunks == 1) {
        m->h1 = m->Hs = m->H, m->k1 = m->K, m->d1 = m->Ds = m->D;
        m->ideal = m->serial + 2 * handoff;
        return true;
    }
    /* One chunk's kernel alone (with several chunks, K can be less than chunks x k1). */
    if (!time_split(OP_KERNEL, chunks, true, L.reps, &m->k1, NULL, NULL) ||
        !time_split(OPS, chunks, false, L.reps, &m->Hs, &m->Ds, &s[3]))
        return false;
    m->spread = s[3] > m->spread ? s[3] : m->spread;
    m->h1 = m->H / chunks;
    m->d1 = m->D / chunks;
    m->ideal = max3(m->Hs + m->k1 + m->d1, m->h1 + m->K + m->d1, m->h1 + m->k1 + m->Ds) +
               2 * handoff;
    return true;
}

const struct model *model_for(const struct findings *f, int chunks)
{
    for (int k = 0; k < f->ncounts; k++)
        if (f->model[k].chunks == chunks)
            return &f->model[k];
    return NULL;
}
