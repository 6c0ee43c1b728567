#!/bin/sh
# The layer rules of docs/ARCHITECTURE.md ("Layers and what each may include"), checked on the
# #include lines of the sources: a folder of src/ (or cuda/) includes its own headers, the
# internal headers the table below grants it (a whole folder, or one header of it) and public
# headers; tools/ and examples/ include public headers and their own only; the engine reaches no public header of Groth16, the formats or circuits, directly or
# through another public header, and never resolves a backend (the built-in stages do).
# Usage: test_layers.sh SOURCE_DIR. Prints each breach; exits 1 when there is one.
root=${1:?usage: test_layers.sh SOURCE_DIR}
cd "$root" || exit 2
status=0

# The internal headers each folder may include besides its own (keep in step with the table in
# docs/ARCHITECTURE.md).
grants() {
    case $1 in
    core | ff) echo "" ;;
    acct) echo "core" ;;
    sync | http) echo "core acct" ;;
    ec) echo "ff" ;;
    poly) echo "ff core" ;;
    msm) echo "ff ec core" ;;
    arith) echo "ff ec poly msm core" ;;
    circuit) echo "arith core" ;;
    groth16) echo "arith circuit acct core" ;;
    io) echo "arith core circuit groth16/keys.h" ;;
    engine) echo "core acct sync" ;;
    stages) echo "core acct groth16" ;;
    cuda) echo "ff ec msm/xyzz.h groth16/prove.h groth16/backend_plugin.h" ;;
    *) echo "UNKNOWN" ;;
    esac
}

includes() { # the quoted includes of the files given, one a line
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$@" 2>/dev/null
}

for dir in src/*/ cuda/; do
    dir=${dir%/}
    folder=${dir##*/}
    allowed=$(grants "$folder")
    if [ "$allowed" = UNKNOWN ]; then
        echo "$dir: a folder with no layer rule: add it to tests/test_layers.sh and ARCHITECTURE.md"
        status=1
        continue
    fi
    for file in "$dir"/*.c "$dir"/*.h "$dir"/*.cu "$dir"/*.cuh; do
        [ -f "$file" ] || continue
        for inc in $(includes "$file"); do
            case $inc in
            */*) ;;
            *) continue ;; # a header beside the file
            esac
            top=${inc%%/*}
            [ "$top" = zkpipe ] || [ "$top" = "$folder" ] && continue
            ok=0
            for g in $allowed; do
                [ "$g" = "$top" ] || [ "$g" = "$inc" ] && ok=1
            done
            if [ $ok = 0 ]; then
                echo "$file includes $inc: $folder may include only $allowed"
                status=1
            fi
        done
    done
done

# The tools and the examples see the library through its public headers only (their own
# headers they include by name).
for file in tools/*.c tools/*/*.c tools/*/*.h examples/*.c examples/*.h; do
    [ -f "$file" ] || continue
    for inc in $(includes "$file"); do
        case $inc in
        zkpipe/*) ;;
        */*)
            echo "$file includes $inc: tools and examples see only the public headers"
            status=1
            ;;
        esac
    done
done

# The examples include nothing but public headers: a host copies one whole.
for file in examples/*.c examples/*.h; do
    [ -f "$file" ] || continue
    for inc in $(includes "$file"); do
        case $inc in
        zkpipe/*) ;;
        *)
            echo "$file includes $inc: an example sees only the public headers"
            status=1
            ;;
        esac
    done
done

# The public headers the engine reaches, followed through the public headers themselves.
seen=""
todo=$(includes src/engine/*.c src/engine/*.h | grep '^zkpipe/' | sort -u)
while [ -n "$todo" ]; do
    next=""
    for h in $todo; do
        case " $seen " in *" $h "*) continue ;; esac
        seen="$seen $h"
        [ -f "include/$h" ] && next="$next $(includes "include/$h" | grep '^zkpipe/')"
    done
    todo=$next
done
for h in $seen; do
    case $h in
    zkpipe/groth16.h | zkpipe/io.h | zkpipe/circuit.h | zkpipe/stages.h | zkpipe/testcircuit.h)
        echo "src/engine reaches $h: the engine knows nothing of what it proves"
        status=1
        ;;
    esac
done
if grep -n 'zkpipe_backend_resolve\|zkpipe__g16_' src/engine/*.c src/engine/*.h; then
    echo "src/engine resolves a backend or calls the prover: that is the built-in stages' part"
    status=1
fi
[ $status = 0 ] && echo "layers: every include within its folder's rule"
exit $status
