pragma circom 2.1.0;

// Small building blocks for the interop fixtures, written for zkpipe's tests. They are not
// meant to be secure: they only give the witness a realistic shape (many 0/1 wires from bit
// decompositions, long chains of products, several public inputs and outputs).

// in = sum(bits[i] * 2^i), each bit constrained to 0 or 1.
template Bits(n) {
    signal input in;
    signal output bits[n];
    var acc = 0;
    var pow = 1;
    for (var i = 0; i < n; i++) {
        bits[i] <-- (in >> i) & 1;
        bits[i] * (bits[i] - 1) === 0;
        acc += bits[i] * pow;
        pow = pow + pow;
    }
    acc === in;
}

// A MiMC-like keyed permutation: x -> (x + k + c_i)^5, `rounds` times, then + k.
template Mix(rounds) {
    signal input x;
    signal input k;
    signal output out;
    signal t2[rounds];
    signal t4[rounds];
    signal t5[rounds];
    for (var i = 0; i < rounds; i++) {
        var c = i * i * 7 + 3 * i + 1;
        var t = (i == 0 ? x : t5[i - 1]) + k + c;
        t2[i] <== t * t;
        t4[i] <== t2[i] * t2[i];
        t5[i] <== t4[i] * t;
    }
    out <== t5[rounds - 1] + k;
}

// (left, right) = sel ? (b, a) : (a, b), with sel constrained to a bit.
template Swap() {
    signal input a;
    signal input b;
    signal input sel;
    signal output left;
    signal output right;
    sel * (sel - 1) === 0;
    signal d <== sel * (b - a);
    left <== a + d;
    right <== b - d;
}
