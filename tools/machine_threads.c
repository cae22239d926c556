/* What a machine gives a second thread, for two kinds of loop (nothing shared).
 *
 *   gcc -O2 -pthread tools/machine_threads.c -o /tmp/machine_threads && /tmp/machine_threads
 *
 * Prints, for 5 rounds each, the work rate of two threads over one thread for a
 * throughput-bound loop (load, and, compare, add over an L1-resident array: the
 * shape of Gang of Four's legal-play scan) and a latency-bound loop (a chain of
 * dependent multiplies).  On two real cores both are near 2x; on two hardware
 * threads of one core the throughput-bound loop is much lower.  docs/rl-vector.md
 * quotes it for the two-thread figures of benchmarks/bench_rl_steps.py.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 4096
#define REPS 20000

typedef struct {
    uint64_t a[N];
    uint64_t mask;
    uint64_t out;
} Work;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void *throughput(void *arg) {
    Work *w = arg;
    uint64_t count = 0;
    for (long r = 0; r < REPS; r++) {
        for (int i = 0; i < N; i++)
            count += (w->a[i] & w->mask) == 0;
        w->mask ^= (uint64_t)r;
    }
    w->out = count;
    return NULL;
}

static void *latency(void *arg) {
    Work *w = arg;
    uint64_t x = w->mask;
    for (long r = 0; r < (long)REPS * N; r++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        x ^= x >> 29;
    }
    w->out = x;
    return NULL;
}

int main(void) {
    Work *w[2];
    for (int k = 0; k < 2; k++) {
        w[k] = malloc(sizeof(Work));
        if (w[k] == NULL)
            return 1;
        for (int i = 0; i < N; i++)
            w[k]->a[i] = (uint64_t)rand() * 2654435761u;
        w[k]->mask = 0xF0F0;
    }
    void *(*loops[2])(void *) = {throughput, latency};
    const char *names[2] = {"throughput-bound", "latency-bound"};
    for (int l = 0; l < 2; l++) {
        for (int round = 0; round < 5; round++) {
            double start = now();
            loops[l](w[0]);
            double one = now() - start;
            pthread_t threads[2];
            start = now();
            for (int k = 0; k < 2; k++)
                pthread_create(&threads[k], NULL, loops[l], w[k]);
            for (int k = 0; k < 2; k++)
                pthread_join(threads[k], NULL);
            double two = now() - start;
            printf("%s: two threads %.2fx one thread\n", names[l], 2 * one / two);
        }
    }
    return (int)(w[0]->out & 0);
}
