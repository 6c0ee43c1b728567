pragma circom 2.1.0;

// Knowledge of two factors of 391, neither of them 1: no public inputs or outputs at all, and a
// domain of a few rows.
template Factors(n) {
    signal input a;
    signal input b;
    signal ia;
    signal ib;
    ia <-- 1 / (a - 1);
    ib <-- 1 / (b - 1);
    (a - 1) * ia === 1;
    (b - 1) * ib === 1;
    a * b === n;
}

component main = Factors(391);
