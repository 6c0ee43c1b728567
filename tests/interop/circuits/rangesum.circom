pragma circom 2.1.0;
include "lib.circom";

// n private values, each proven to fit in `bits` bits; outputs their sum, a weighted sum and how
// many are odd, and proves sum <= limit (a public input) by decomposing limit - sum. Most wires
// are bits.
template RangeSum(n, bits) {
    signal input values[n];
    signal input weights[n];
    signal input limit;
    signal output sum;
    signal output weighted;
    signal output odd;

    component range[n];
    signal prod[n];
    var s = 0;
    var w = 0;
    var nodd = 0;
    for (var i = 0; i < n; i++) {
        range[i] = Bits(bits);
        range[i].in <== values[i];
        prod[i] <== values[i] * weights[i];
        s += values[i];
        w += prod[i];
        nodd += range[i].bits[0];
    }
    sum <== s;
    weighted <== w;
    odd <== nodd;

    component slack = Bits(bits + 6);
    slack.in <== limit - sum;
}

component main {public [weights, limit]} = RangeSum(22, 32);
