/*
 * A fake libcudnn.so.9: the legacy convolution API gpudoctor calls, computed on the CPU (NCHW,
 * float, cross-correlation, padding, stride and dilation). FAKE_WRONG=conv changes one output.
 */
#define _GNU_SOURCE
#include "fake.h"

struct tensor {
    int n, c, h, w;
};
struct conv {
    int pad_h, pad_w, u, v, dh, dw;
};

size_t cudnnGetVersion(void)
{
    return 91900;
}

const char *cudnnGetErrorString(int st)
{
    switch (st) {
    case 0:
        return "CUDNN_STATUS_SUCCESS";
    case 1001:
        return "CUDNN_STATUS_NOT_INITIALIZED";
    case 2000:
        return "CUDNN_STATUS_BAD_PARAM";
    case 3000:
        return "CUDNN_STATUS_NOT_SUPPORTED";
    case 4000:
        return "CUDNN_STATUS_INTERNAL_ERROR";
    default:
        return "CUDNN_STATUS_EXECUTION_FAILED";
    }
}

static int handles;

int cudnnCreate(void **h)
{
    fake_enter("cudnnCreate");
    int st = fake_fail("cudnnCreate");
    if (st)
        return st;
    *h = &handles;
    return 0;
}

int cudnnDestroy(void *h)
{
    (void)h;
    return 0;
}

static int make(void **p, size_t size)
{
    *p = calloc(1, size);
    return *p ? 0 : 4003;
}

int cudnnCreateTensorDescriptor(struct tensor **t)
{
    return make((void **)t, sizeof **t);
}

int cudnnCreateFilterDescriptor(struct tensor **t)
{
    return make((void **)t, sizeof **t);
}

int cudnnCreateConvolutionDescriptor(struct conv **c)
{
    return make((void **)c, sizeof **c);
}

int cudnnDestroyTensorDescriptor(void *p)
{
    free(p);
    return 0;
}

int cudnnDestroyFilterDescriptor(void *p)
{
    free(p);
    return 0;
}

int cudnnDestroyConvolutionDescriptor(void *p)
{
    free(p);
    return 0;
}

int cudnnSetTensor4dDescriptor(struct tensor *t, int format, int type, int n, int c, int h, int w)
{
    if (format != 0 || type != 0 || n <= 0 || c <= 0 || h <= 0 || w <= 0)
        return 2000;
    *t = (struct tensor){ n, c, h, w };
    return 0;
}

int cudnnSetFilter4dDescriptor(struct tensor *t, int type, int format, int k, int c, int h, int w)
{
    return cudnnSetTensor4dDescriptor(t, format, type, k, c, h, w);
}

int cudnnSetConvolution2dDescriptor(struct conv *c, int ph, int pw, int u, int v, int dh, int dw,
                                    int mode, int type)
{
    if (mode != 1 || type != 0 || u <= 0 || v <= 0 || dh <= 0 || dw <= 0)
        return 3000;
    *c = (struct conv){ ph, pw, u, v, dh, dw };
    return 0;
}

int cudnnGetConvolutionForwardWorkspaceSize(void *h, struct tensor *x, struct tensor *w,
                                            struct conv *c, struct tensor *y, int algo,
                                            size_t *bytes)
{
    (void)h;
    (void)x;
    (void)w;
    (void)c;
    (void)y;
    (void)algo;
    fake_enter("cudnnGetConvolutionForwardWorkspaceSize");
    const char *ws = getenv("FAKE_CUDNN_WORKSPACE");
    *bytes = ws ? (size_t)atoll(ws) : 0;
    return fake_fail("cudnnGetConvolutionForwardWorkspaceSize");
}

int cudnnConvolutionForward(void *h, const float *alpha, struct tensor *xd, const float *x,
                            struct tensor *wd, const float *w, struct conv *c, int algo, void *ws,
                            size_t ws_bytes, const float *beta, struct tensor *yd, float *y)
{
    (void)h;
    (void)algo;
    (void)ws;
    (void)ws_bytes;
    fake_enter("cudnnConvolutionForward");
    int st = fake_fail("cudnnConvolutionForward");
    if (st)
        return st;
    if (xd->c != wd->c || yd->c != wd->n)
        return 2000;
    for (int n = 0; n < yd->n; n++)
        for (int k = 0; k < yd->c; k++)
            for (int oh = 0; oh < yd->h; oh++)
                for (int ow = 0; ow < yd->w; ow++) {
                    float s = 0;
                    for (int ch = 0; ch < xd->c; ch++)
                        for (int r = 0; r < wd->h; r++)
                            for (int q = 0; q < wd->w; q++) {
                                int ih = oh * c->u - c->pad_h + r * c->dh;
                                int iw = ow * c->v - c->pad_w + q * c->dw;
                                if (ih < 0 || iw < 0 || ih >= xd->h || iw >= xd->w)
                                    continue;
                                s += x[((n * xd->c + ch) * xd->h + ih) * xd->w + iw] *
                                     w[((k * wd->c + ch) * wd->h + r) * wd->w + q];
                            }
                    float *out = &y[((n * yd->c + k) * yd->h + oh) * yd->w + ow];
                    *out = *alpha * s + (*beta != 0 ? *beta * *out : 0);
                }
    if (fake_wrong("conv"))
        y[3] -= 2;
    return 0;
}
