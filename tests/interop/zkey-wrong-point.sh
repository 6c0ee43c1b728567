#!/bin/sh
# zkey-wrong-point.sh IN OUT: writes OUT, the zkey IN with a valid point where another belongs:
# the A query's point of wire 1 copied over wire 0's (wire 0 is the constant 1, so every
# proof's A moves). OUT is well-formed (every point on the curve and in the subgroup) and
# opens; only its proofs fail its own verifying key, which the prover's check must catch.
set -eu
[ $# -eq 2 ] || { echo "usage: zkey-wrong-point.sh IN.zkey OUT.zkey" >&2; exit 2; }
perl -e '
    open(my $f, "<:raw", $ARGV[0]) or die "$ARGV[0]: $!\n";
    local $/;
    my $z = <$f>;
    die "$ARGV[0]: not a zkey\n" unless length($z) >= 12 && substr($z, 0, 4) eq "zkey";
    my ($at, $n8q, $a) = (12, 0, -1);
    for (1 .. unpack("V", substr($z, 8, 4))) {
        my ($id, $lo, $hi) = unpack("VVV", substr($z, $at, 12));
        $at += 12;
        $n8q = unpack("V", substr($z, $at, 4)) if $id == 2;
        $a = $at if $id == 5;
        $at += $lo + 4294967296 * $hi;
    }
    die "$ARGV[0]: no header or no A section\n" unless $n8q > 0 && $a >= 0;
    my ($p0, $p1) = (substr($z, $a, 2 * $n8q), substr($z, $a + 2 * $n8q, 2 * $n8q));
    die "$ARGV[0]: wires 0 and 1 share a point\n" if $p0 eq $p1;
    substr($z, $a, 2 * $n8q) = $p1;
    open(my $g, ">:raw", $ARGV[1]) or die "$ARGV[1]: $!\n";
    print $g $z or die "$ARGV[1]: $!\n";
    close($g) or die "$ARGV[1]: $!\n";
' "$1" "$2"
