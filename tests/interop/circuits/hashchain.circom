pragma circom 2.1.0;
include "lib.circom";

// A Merkle-style path: a leaf hashed with `depth` siblings, the order at each level chosen by a
// private direction bit. Public: the leaf's key and a domain tag. Outputs: the root and a
// nullifier derived from the private secret.
template HashChain(depth, rounds) {
    signal input key;
    signal input tag;
    signal input secret;
    signal input siblings[depth];
    signal input dirs[depth];
    signal output root;
    signal output nullifier;

    component leaf = Mix(rounds);
    leaf.x <== secret;
    leaf.k <== key;

    component swap[depth];
    component mix[depth];
    for (var i = 0; i < depth; i++) {
        swap[i] = Swap();
        swap[i].a <== i == 0 ? leaf.out : mix[i - 1].out;
        swap[i].b <== siblings[i];
        swap[i].sel <== dirs[i];
        mix[i] = Mix(rounds);
        mix[i].x <== swap[i].left;
        mix[i].k <== swap[i].right + tag;
    }
    root <== mix[depth - 1].out;

    component nf = Mix(rounds);
    nf.x <== secret;
    nf.k <== tag;
    nullifier <== nf.out;
}

component main {public [key, tag]} = HashChain(4, 12);
