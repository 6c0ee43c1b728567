/* A main for the fuzz targets where libFuzzer is not linked: runs LLVMFuzzerTestOneInput once
 * on every file named, or in a folder named, on the command line (arguments starting with '-',
 * libFuzzer's flags, are ignored). Exits 0 when every file was read and run, 1 when one could
 * not be read or none was found; a target that finds a bug aborts. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The file's bytes in a block of exactly their size, so a sanitizer sees a read past them. */
static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    struct stat sb;
    if (f == NULL)
        return -1;
    uint8_t *buf = NULL;
    size_t n = 0;
    int bad = fstat(fileno(f), &sb) != 0 || sb.st_size < 0 || sb.st_size > (1 << 26);
    if (!bad) {
        n = (size_t)sb.st_size;
        buf = malloc(n > 0 ? n : 1);
        bad = buf == NULL || fread(buf, 1, n, f) != n;
    }
    fclose(f);
    if (!bad)
        LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    size_t runs = 0;
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (argv[i][0] == '-')
            continue;
        if (stat(argv[i], &sb) != 0) {
            fprintf(stderr, "%s: cannot stat\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(sb.st_mode)) {
            if (run_file(argv[i]) != 0) {
                fprintf(stderr, "%s: cannot read\n", argv[i]);
                return 1;
            }
            runs++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (d == NULL) {
            fprintf(stderr, "%s: cannot open the folder\n", argv[i]);
            return 1;
        }
        struct dirent *e;
        int bad = 0;
        while (!bad && (e = readdir(d)) != NULL) {
            char path[4096];
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            if (run_file(path) != 0) {
                fprintf(stderr, "%s: cannot read\n", path);
                bad = 1;
            }
            runs++;
        }
        closedir(d);
        if (bad)
            return 1;
    }
    printf("%zu inputs run\n", runs);
    return runs > 0 ? 0 : 1;
}
