/* The setup's scalar side: the QAP polynomials of a constraint system evaluated at tau. Part of
 * the per-curve template (see groth16_names.h).
 *
 * Over the domain <w> of size n, u_i is the polynomial with u_i(w^row) = A[row][i] (and the
 * input-consistency rows: u_{input j}(w^(m + j)) = 1), so u_i(tau) = sum_row A[row][i] L_row(tau)
 * with the Lagrange basis L_j(tau) = Z(tau) / n * w^j / (tau - w^j), Z(x) = x^n - 1. */

/* L[j] = L_j(tau) for j < n; scratch holds n elements. tau must not be in the domain. */
static void lagrange_at(FR *L, FR *scratch, const FR *tau, const DOMAIN *d)
{
    size_t n = NTT(domain_size)(d);
    FR w, wj, z, t;
    NTT(domain_generator)(&w, d);
    FRF(set_one)(&wj);
    for (size_t j = 0; j < n; j++) {
        FRF(sub)(&L[j], tau, &wj);
        FRF(mul)(&wj, &wj, &w);
    }
    FRF(batch_inv)(L, L, n, scratch);
    /* Z(tau) / n */
    z = *tau;
    for (unsigned i = 0; i < NTT(domain_log_size)(d); i++)
        FRF(sqr)(&z, &z);
    FRF(set_one)(&t);
    FRF(sub)(&z, &z, &t);
    FRF(from_u64)(&t, (uint64_t)n);
    FRF(inv)(&t, &t);
    FRF(mul)(&z, &z, &t);
    FRF(set_one)(&wj);
    for (size_t j = 0; j < n; j++) {
        FRF(mul)(&t, &z, &wj);
        FRF(mul)(&L[j], &L[j], &t);
        FRF(mul)(&wj, &wj, &w);
    }
}

/* uvw[k][i] += sum over rows of matrix k's coefficient of variable i times L[row];
 * uvw[k] holds num_inputs + num_aux elements, zeroed by the caller. */
static void qap_at(FR *const *uvw, const zkpipe_cs *cs, const FR *L)
{
    for (int k = 0; k < 3; k++) {
        for (size_t row = 0; row < cs->num_constraints; row++) {
            size_t count;
            const zkpipe__term *t = zkpipe__cs_row(cs, k, row, &count);
            for (size_t i = 0; i < count; i++) {
                FR c, p;
                memcpy(c.l, zkpipe__cs_coeff(cs, t[i].coeff), sizeof c.l);
                FR *acc = &uvw[k][zkpipe__var_index(cs, t[i].var)];
                FRF(mul)(&p, &c, &L[row]);
                FRF(add)(acc, acc, &p);
            }
        }
    }
    for (size_t j = 0; j < cs->num_inputs; j++)
        FRF(add)(&uvw[0][j], &uvw[0][j], &L[cs->num_constraints + j]);
}

/* out[i] = (beta u_i + alpha v_i + w_i) * inv for i in [begin, end), written at out[i - begin]. */
static void combine_at(FR *out, FR *const *uvw, const FR *alpha, const FR *beta, const FR *inv,
                       size_t begin, size_t end)
{
    for (size_t i = begin; i < end; i++) {
        FR x, y;
        FRF(mul)(&x, beta, &uvw[0][i]);
        FRF(mul)(&y, alpha, &uvw[1][i]);
        FRF(add)(&x, &x, &y);
        FRF(add)(&x, &x, &uvw[2][i]);
        FRF(mul)(&out[i - begin], &x, inv);
    }
}

/* out[i] = tau^i Z(tau) / delta for i < n - 1: the H query's scalars. */
static void h_query_at(FR *out, const FR *tau, const FR *delta_inv, size_t n)
{
    FR z, one, p;
    FRF(set_one)(&one);
    uint64_t e[1] = {(uint64_t)n};
    FRF(pow)(&z, tau, e, 1);
    FRF(sub)(&z, &z, &one);
    FRF(mul)(&p, &z, delta_inv);
    for (size_t i = 0; i + 1 < n; i++) {
        out[i] = p;
        FRF(mul)(&p, &p, tau);
    }
}
