pragma circom 2.1.0;

// A few products with several outputs, some of them linear in the inputs: a tiny domain.
template Multiplier() {
    signal input a;
    signal input b;
    signal input c;
    signal input d;
    signal output ab;
    signal output abc;
    signal output mixed;
    signal output lin;
    ab <== a * b;
    abc <== ab * c;
    mixed <== (a + d) * (b - d);
    lin <== 3 * a + b - c + 7;
}

component main {public [a, b, c]} = Multiplier();
