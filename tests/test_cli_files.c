/* The tools' output sets, input reads and mapped-input guard (tools/cli/cli_files.h,
 * tools/cli/cli_mapped.h): every path checked before anything is written, an output that is an
 * input refused, an input that is not a regular file refused at once, files replaced by
 * rename and put back when a later rename fails, symbolic links followed, devices, FIFOs and
 * descriptors written through, signals that remove the new files, leftovers of dead processes
 * swept, and a truncated mapped input reported as an I/O error naming it.
 * rename and link are wrapped (-Wl,--wrap) so a test can make the Nth call fail, and link and
 * fsync so a test can count them: a set is synced to the disk only when asked to be durable;
 * open, so a test can refuse O_TMPFILE and see the new files staged by name. */
#define _GNU_SOURCE /* mknod, O_TMPFILE */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli_files.h"
#include "cli_mapped.h"
#include "nap.h"
#include "scratch_dir.h"
#include "zkpipe/io.h"

/* rename and link calls to let through before failing one with `fail_errno` (-1: never). */
static int rename_pass = -1, link_pass = -1, fail_errno = EIO;
/* link and fsync calls made so far. */
static int links_made, fsyncs_made;
/* open refuses O_TMPFILE (EOPNOTSUPP, as a file system without it would). */
static int no_unnamed;

int __real_rename(const char *from, const char *to);
int __wrap_rename(const char *from, const char *to);
int __real_link(const char *from, const char *to);
int __wrap_link(const char *from, const char *to);
int __real_fsync(int fd);
int __wrap_fsync(int fd);
int __real_open(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...);

/* Whether this call is the one to fail (then errno is set). */
static int fails(int *pass)
{
    if (*pass == 0) {
        *pass = -1;
        errno = fail_errno;
        return 1;
    }
    if (*pass > 0)
        (*pass)--;
    return 0;
}

int __wrap_rename(const char *from, const char *to)
{
    return fails(&rename_pass) ? -1 : __real_rename(from, to);
}

int __wrap_fsync(int fd)
{
    fsyncs_made++;
    return __real_fsync(fd);
}

int __wrap_link(const char *from, const char *to)
{
    links_made++;
    return fails(&link_pass) ? -1 : __real_link(from, to);
}

int __wrap_open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if ((flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (no_unnamed && (flags & O_TMPFILE) == O_TMPFILE) {
        errno = EOPNOTSUPP;
        return -1;
    }
    return __real_open(path, flags, mode);
}

/* Whether the test folder's file system makes unnamed files (O_TMPFILE). */
static int unnamed_here(void)
{
    int fd = __real_open(scratch_dir, O_TMPFILE | O_WRONLY, 0600);
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

/* scratch_dir/name, in a ring long enough for the paths one test holds at once. */
static const char *at(const char *name)
{
    static char paths[256][512];
    static int next;
    char *p = paths[next++ % 256];
    snprintf(p, 512, "%s/%s", scratch_dir, name);
    return p;
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* The file's text ("" for a missing file, checked with `exists`). */
static const char *text_of(const char *path)
{
    static char buf[4096];
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Files in the test folder whose names hold ".zkpipe-". */
static int leftovers(void)
{
    DIR *d = opendir(scratch_dir);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)) != NULL)
        n += strstr(e->d_name, ".zkpipe-") != NULL;
    closedir(d);
    return n;
}

static void expect_text(const char *path, const char *want)
{
    const char *got = text_of(path);
    if (got == NULL || strcmp(got, want) != 0)
        fail_msg("%s holds \"%s\", expected \"%s\"", path, got != NULL ? got : "(nothing)", want);
}

static cli_output out(const char *path, const char *text)
{
    cli_output o = {path, text, text != NULL ? strlen(text) : 0};
    return o;
}

/* A bad path anywhere in the set: refused before anything is written or created. */
static void bad_paths_are_refused_before_anything_is_written(void **state)
{
    (void)state;
    cli_error e;
    put_file(at("proof.json"), "old proof");
    mkdir(at("public.json"), 0755);
    cli_output set[3] = {out(at("metrics.json"), "m"), out(at("public.json"), "p"),
                         out(at("proof.json"), "new proof")};
    assert_int_equal(cli_outputs_write(set, 3, 0, &e), -1);
    assert_int_equal(e.index, 1);
    assert_int_equal(e.err, EISDIR);
    expect_text(at("proof.json"), "old proof");
    assert_null(text_of(at("metrics.json")));
    assert_int_equal(cli_outputs_check(set, 3, &e), -1);
    rmdir(at("public.json"));

    static const struct {
        const char *path;
        int err;
    } bad[] = {
        {"", ENOENT},
        {"/nonexistent-folder-zkpipe/x.json", ENOENT},
        {"/dev/fd/987", EBADF},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        set[0] = out(bad[i].path, "m");
        set[1] = out(at("public.json"), "p");
        if (cli_outputs_write(set, 3, 0, &e) != -1 || e.index != 0 || e.err != bad[i].err)
            fail_msg("\"%s\": index %zu, %s", bad[i].path, e.index, strerror(e.err));
        expect_text(at("proof.json"), "old proof");
        assert_null(text_of(at("public.json")));
    }
    /* A trailing slash names a folder. */
    set[0] = out(at("new/"), "m");
    assert_int_equal(cli_outputs_write(set, 3, 0, &e), -1);
    assert_int_equal(e.err, EISDIR);
    /* Two outputs onto one file, however spelled. */
    char dotted[600];
    snprintf(dotted, sizeof dotted, "%s/./proof.json", scratch_dir);
    set[0] = out(dotted, "m");
    assert_int_equal(cli_outputs_write(set, 3, 0, &e), -1);
    assert_int_equal(e.index, 2);
    symlink("proof.json", at("alias.json"));
    set[0] = out(at("alias.json"), "m");
    assert_int_equal(cli_outputs_write(set, 3, 0, &e), -1);
    assert_int_equal(e.index, 2);
    unlink(at("alias.json"));
    /* A socket. */
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", at("sock"));
    assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
    set[0] = out(at("sock"), "m");
    assert_int_equal(cli_outputs_write(set, 3, 0, &e), -1);
    assert_int_equal(e.err, ENXIO);
    close(s);
    unlink(at("sock"));
    /* A folder the process may not write into (root may write anywhere). */
    if (geteuid() != 0) {
        mkdir(at("ro"), 0555);
        set[0] = out(at("ro/m.json"), "m");
        assert_int_equal(cli_outputs_write(set, 3, 0, &e), -1);
        assert_int_equal(e.err, EACCES);
        rmdir(at("ro"));
    }
    expect_text(at("proof.json"), "old proof");
    assert_int_equal(leftovers(), 0);
    unlink(at("proof.json"));
}

/* Two names of one file (hard links) are two outputs onto it: refused, both left as they were. */
static void hard_links_of_one_file_are_one_output(void **state)
{
    (void)state;
    cli_error e;
    put_file(at("proof.json"), "old");
    assert_int_equal(link(at("proof.json"), at("public.json")), 0);
    cli_output set[2] = {out(at("public.json"), "p"), out(at("proof.json"), "new proof")};
    assert_int_equal(cli_outputs_check(set, 2, &e), -1);
    assert_int_equal(e.index, 1);
    assert_int_equal(cli_outputs_write(set, 2, 0, &e), -1);
    assert_int_equal(e.index, 1);
    expect_text(at("proof.json"), "old");
    expect_text(at("public.json"), "old");
    assert_int_equal(leftovers(), 0);
    unlink(at("proof.json"));
    unlink(at("public.json"));
}

/* cli_outputs_check_inputs on `path` as the only output, against the inputs "in.zkey" and
 * "in.wtns": 0, or -1 with the line in `why`. */
static int clash(const char *path, char *why, size_t cap)
{
    const char *inputs[3] = {at("in.zkey"), NULL, at("in.wtns")};
    cli_output o = out(path, "x");
    return cli_outputs_check_inputs(&o, 1, inputs, 3, why, cap);
}

/* An output that is an input, by its name, a symbolic link, a hard link or a descriptor: refused
 * naming both, and the input untouched; a new file, or another one, is fine. */
static void outputs_that_are_inputs_are_refused(void **state)
{
    (void)state;
    char why[2 * CLI_ERROR_TEXT_MAX];
    put_file(at("in.zkey"), "zkey");
    put_file(at("in.wtns"), "wtns");
    put_file(at("other.json"), "other");
    assert_int_equal(symlink("in.zkey", at("link.json")), 0);
    assert_int_equal(symlink("link.json", at("link2.json")), 0);
    assert_int_equal(link(at("in.wtns"), at("hard.json")), 0);
    char spelled[600], fd_path[64];
    snprintf(spelled, sizeof spelled, "%s/./in.wtns", scratch_dir);
    int fd = open(at("in.zkey"), O_RDONLY);
    assert_true(fd >= 0);
    snprintf(fd_path, sizeof fd_path, "/dev/fd/%d", fd);
    static const struct {
        const char *output, *input;
    } same[] = {
        {"in.zkey", "in.zkey"},   {"link.json", "in.zkey"}, {"link2.json", "in.zkey"},
        {"hard.json", "in.wtns"}, {"in.wtns", "in.wtns"},
    };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        const char *path = at(same[i].output);
        char want[1200];
        snprintf(want, sizeof want, "%s: is the same file as the input %s,", path,
                 at(same[i].input));
        if (clash(path, why, sizeof why) != -1 || strncmp(why, want, strlen(want)) != 0)
            fail_msg("%s: \"%s\"", same[i].output, why);
    }
    assert_int_equal(clash(spelled, why, sizeof why), -1);
    assert_int_equal(clash(fd_path, why, sizeof why), -1);
    assert_non_null(strstr(why, "in.zkey"));
    close(fd);
    assert_int_equal(clash(at("new.json"), why, sizeof why), 0);
    assert_int_equal(clash(at("other.json"), why, sizeof why), 0);
    assert_int_equal(symlink("missing.json", at("dangling.json")), 0);
    assert_int_equal(clash(at("dangling.json"), why, sizeof why), 0);
    /* An input that is not there is left to its reader; the cut line stays a string. */
    const char *missing = at("missing.wtns");
    cli_output o = out(at("in.zkey"), "x");
    assert_int_equal(cli_outputs_check_inputs(&o, 1, &missing, 1, why, sizeof why), 0);
    assert_int_equal(clash(at("in.zkey"), why, 8), -1);
    assert_int_equal(strlen(why), 7);
    expect_text(at("in.zkey"), "zkey");
    expect_text(at("in.wtns"), "wtns");
    assert_int_equal(leftovers(), 0);
    static const char *const made[] = {"in.zkey",    "in.wtns",   "other.json",   "link.json",
                                       "link2.json", "hard.json", "dangling.json"};
    for (size_t i = 0; i < sizeof made / sizeof made[0]; i++)
        unlink(at(made[i]));
}

/* cli_read_file on `path`: NULL and errno `err` within ten seconds (a FIFO without a writer
 * would block an open without O_NONBLOCK forever: SIGALRM then ends the test). */
static void read_refused(const char *path, int err)
{
    size_t len;
    alarm(10);
    errno = 0;
    char *text = cli_read_file(path, 1 << 20, &len);
    int got = errno;
    alarm(0);
    if (text != NULL || got != err)
        fail_msg("%s: %s, errno %s", path, text != NULL ? "read" : "refused", strerror(got));
}

/* Only a regular file is read: a FIFO, a device, a socket and a folder are refused at once. */
static void inputs_that_are_not_regular_files_are_refused(void **state)
{
    (void)state;
    assert_int_equal(mkfifo(at("fifo"), 0600), 0);
    read_refused(at("fifo"), ENODEV);
    read_refused("/dev/null", ENODEV);
    read_refused("/dev/zero", ENODEV);
    read_refused(scratch_dir, EISDIR);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", at("sock"));
    assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
    read_refused(at("sock"), ENODEV);
    close(s);
    unlink(at("sock"));
    unlink(at("fifo"));
    put_file(at("plain.json"), "{}");
    size_t len;
    char *text = cli_read_file(at("plain.json"), 2, &len);
    assert_non_null(text);
    assert_string_equal(text, "{}");
    free(text);
    unlink(at("plain.json"));
}

static void files_are_replaced_and_keep_their_mode(void **state)
{
    (void)state;
    cli_error e;
    put_file(at("a.json"), "old a");
    chmod(at("a.json"), 0640);
    cli_output set[2] = {out(at("a.json"), "new a"), out(at("b.json"), "new b")};
    assert_int_equal(cli_outputs_write(set, 2, 0, &e), 0);
    expect_text(at("a.json"), "new a");
    expect_text(at("b.json"), "new b");
    struct stat st;
    assert_int_equal(stat(at("a.json"), &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    mode_t mask = umask(022);
    umask(mask);
    assert_int_equal(stat(at("b.json"), &st), 0);
    assert_int_equal(st.st_mode & 07777, 0666 & ~mask);
    assert_int_equal(leftovers(), 0);
    /* An empty text makes an empty file. */
    set[0] = out(at("a.json"), "");
    assert_int_equal(cli_outputs_write(set, 1, 0, &e), 0);
    expect_text(at("a.json"), "");
    unlink(at("a.json"));
    unlink(at("b.json"));
}

static void symbolic_links_are_followed(void **state)
{
    (void)state;
    cli_error e;
    mkdir(at("sub"), 0755);
    put_file(at("sub/target.json"), "old");
    /* a relative link to a relative link, in another folder */
    assert_int_equal(symlink("sub/mid.json", at("link.json")), 0);
    assert_int_equal(symlink("target.json", at("sub/mid.json")), 0);
    assert_int_equal(symlink("missing.json", at("dangling.json")), 0);
    cli_output set[2] = {out(at("link.json"), "through two links"),
                         out(at("dangling.json"), "created")};
    assert_int_equal(cli_outputs_write(set, 2, 0, &e), 0);
    struct stat st;
    assert_int_equal(lstat(at("link.json"), &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(lstat(at("sub/mid.json"), &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    expect_text(at("sub/target.json"), "through two links");
    assert_int_equal(lstat(at("dangling.json"), &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    expect_text(at("missing.json"), "created");
    /* a loop */
    symlink("loop2", at("loop1"));
    symlink("loop1", at("loop2"));
    set[0] = out(at("loop1"), "x");
    assert_int_equal(cli_outputs_write(set, 1, 0, &e), -1);
    assert_int_equal(e.err, ELOOP);
    assert_int_equal(leftovers(), 0);
}

/* Runs `fn` in a child with its stdout on a pipe; returns what it printed. */
static const char *captured(void (*fn)(void))
{
    static char buf[4096];
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        fn();
        fflush(stdout);
        _exit(0);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t r;
    while ((r = read(fds[0], buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = '\0';
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return buf;
}

/* (/dev/stdout only when not root: were it renamed onto by mistake, root would replace the
 * system's link; nothing can be created under /proc.) */
static void write_dash_and_dev_stdout(void)
{
    cli_error e;
    cli_output set[3] = {out("-", "one "), out("/dev/fd/1", "two "),
                         out(geteuid() != 0 ? "/dev/stdout" : "/proc/self/fd/1", "three")};
    if (cli_outputs_write(set, 3, 0, &e) != 0)
        _exit(1);
}

/* A null and a full device: private nodes as root (a mistaken rename must not replace the
 * system's), the system's otherwise. */
static const char *null_dev, *full_dev;

static void make_devices(void)
{
    if (geteuid() == 0 && mknod(at("null"), S_IFCHR | 0666, makedev(1, 3)) == 0 &&
        mknod(at("full"), S_IFCHR | 0666, makedev(1, 7)) == 0) {
        null_dev = at("null");
        full_dev = at("full");
    } else {
        null_dev = "/dev/null";
        full_dev = "/dev/full";
    }
}

static void devices_fifos_and_descriptors_are_written_through(void **state)
{
    (void)state;
    cli_error e;
    assert_string_equal(captured(write_dash_and_dev_stdout), "one two three");
    make_devices();
    /* A null device stays a device. */
    cli_output set[2] = {out(null_dev, "gone"), out(at("f.json"), "f")};
    assert_int_equal(cli_outputs_write(set, 2, 0, &e), 0);
    struct stat st;
    assert_int_equal(stat(null_dev, &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    expect_text(at("f.json"), "f");
    /* A device that refuses the text: the files are left as they were. */
    put_file(at("f.json"), "old f");
    set[0] = out(at("f.json"), "new f");
    set[1] = out(full_dev, "x");
    assert_int_equal(cli_outputs_write(set, 2, 0, &e), -1);
    assert_int_equal(e.index, 1);
    assert_int_equal(e.err, ENOSPC);
    assert_int_equal(stat(full_dev, &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    expect_text(at("f.json"), "old f");
    assert_int_equal(leftovers(), 0);
    /* A FIFO nobody reads is refused; one that is read gets the text. */
    assert_int_equal(mkfifo(at("fifo"), 0644), 0);
    set[1] = out(at("fifo"), "through the fifo");
    assert_int_equal(cli_outputs_write(set, 2, 0, &e), -1);
    assert_int_equal(e.err, ENXIO);
    expect_text(at("f.json"), "old f");
    int rd = open(at("fifo"), O_RDONLY | O_NONBLOCK);
    assert_true(rd >= 0);
    assert_int_equal(cli_outputs_write(set, 2, 0, &e), 0);
    char buf[64] = {0};
    assert_int_equal(read(rd, buf, sizeof buf - 1), 16);
    assert_string_equal(buf, "through the fifo");
    close(rd);
    assert_int_equal(stat(at("fifo"), &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    expect_text(at("f.json"), "new f");
    /* /dev/fd/N of a pipe */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    char path[32];
    snprintf(path, sizeof path, "/dev/fd/%d", fds[1]);
    set[0] = out(path, "piped");
    assert_int_equal(cli_outputs_write(set, 1, 0, &e), 0);
    memset(buf, 0, sizeof buf);
    assert_int_equal(read(fds[0], buf, sizeof buf), 5);
    assert_string_equal(buf, "piped");
    close(fds[0]);
    close(fds[1]);
    unlink(at("fifo"));
    unlink(at("f.json"));
    if (null_dev != NULL && strncmp(null_dev, "/dev/", 5) != 0) {
        unlink(null_dev);
        unlink(full_dev);
    }
}

/* A rename or a link that fails: what was renamed is put back. */
static void a_failed_rename_puts_everything_back(void **state)
{
    (void)state;
    cli_error e;
    put_file(at("m.json"), "old m");
    put_file(at("p.json"), "old p");
    cli_output set[3] = {out(at("m.json"), "new m"), out(at("p.json"), "new p"),
                         out(at("q.json"), "new q")};
    for (int fail = 0; fail < 3; fail++) {
        rename_pass = fail;
        assert_int_equal(cli_outputs_write(set, 3, 0, &e), -1);
        assert_int_equal(e.index, (size_t)fail);
        assert_int_equal(e.err, EIO);
        expect_text(at("m.json"), "old m");
        expect_text(at("p.json"), "old p");
        assert_null(text_of(at("q.json")));
        if (leftovers() != 0)
            fail_msg("rename %d failed: files left", fail);
    }
    link_pass = 1; /* the second file's link */
    assert_int_equal(cli_outputs_write(set, 3, 0, &e), -1);
    assert_int_equal(e.index, 1);
    expect_text(at("m.json"), "old m");
    assert_int_equal(leftovers(), 0);
    /* A file system without hard links: written all the same. */
    link_pass = 0;
    fail_errno = EPERM;
    assert_int_equal(cli_outputs_write(set, 3, 0, &e), 0);
    fail_errno = EIO;
    expect_text(at("m.json"), "new m");
    expect_text(at("q.json"), "new q");
    assert_int_equal(leftovers(), 0);
    unlink(at("m.json"));
    unlink(at("p.json"));
    unlink(at("q.json"));
}

static void write_under_fsize_limit(void)
{
    struct rlimit rl = {0, 0};
    setrlimit(RLIMIT_FSIZE, &rl);
    cli_error e;
    cli_output set[2] = {out(at("l.json"), "new l"), out(at("k.json"), "new k")};
    int rc = cli_outputs_write(set, 2, 0, &e);
    printf("%d %zu %d", rc, e.index, e.err);
}

/* ulimit -f 0: EFBIG instead of SIGXFSZ, nothing left. */
static void a_file_size_limit_is_an_error(void **state)
{
    (void)state;
    put_file(at("l.json"), "old l");
    char want[64];
    snprintf(want, sizeof want, "-1 0 %d", EFBIG);
    assert_string_equal(captured(write_under_fsize_limit), want);
    expect_text(at("l.json"), "old l");
    assert_null(text_of(at("k.json")));
    assert_int_equal(leftovers(), 0);
    unlink(at("l.json"));
}

/* A child writing a set whose second output is a FIFO the parent opened but does not read:
 * it blocks there with its new file staged (the FIFO is written after the files are staged),
 * and the parent sends `sig`. A handled signal removes the new file; SIGKILL leaves a named
 * one, which the next write sweeps, and no unnamed one. */
static void signal_while_writing(int sig, int ignore_first)
{
    put_file(at("s.json"), "old s");
    assert_int_equal(mkfifo(at("slow"), 0644), 0);
    int rd = open(at("slow"), O_RDONLY | O_NONBLOCK);
    assert_true(rd >= 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (ignore_first)
            signal(sig, SIG_IGN);
        static char big[1 << 20];
        memset(big, 'x', sizeof big);
        cli_error e;
        cli_output set[2] = {out(at("s.json"), "new s"), {at("slow"), big, sizeof big}};
        cli_outputs_write(set, 2, 0, &e);
        _exit(3);
    }
    struct pollfd pfd = {rd, POLLIN, 0};
    assert_int_equal(poll(&pfd, 1, 10000), 1); /* the FIFO is being written */
    nap_ms(50);                                /* and full */
    kill(pid, sig);
    int status;
    if (ignore_first) { /* ignored: it keeps writing until the reader drains the FIFO */
        char buf[65536];
        ssize_t r;
        nap_ms(50);
        while ((r = read(rd, buf, sizeof buf)) != 0)
            if (r < 0)
                nap_ms(1);
        waitpid(pid, &status, 0);
        assert_true(WIFEXITED(status));
        expect_text(at("s.json"), "new s");
    } else {
        waitpid(pid, &status, 0);
        if (!WIFSIGNALED(status) || WTERMSIG(status) != sig)
            fail_msg("signal %d: status %#x", sig, status);
        expect_text(at("s.json"), "old s");
    }
    close(rd);
    unlink(at("slow"));
    if (sig == SIGKILL) {
        assert_int_equal(leftovers(), no_unnamed || !unnamed_here());
        cli_error e;
        cli_output set[1] = {out(at("s.json"), "next s")};
        assert_int_equal(cli_outputs_write(set, 1, 0, &e), 0);
        expect_text(at("s.json"), "next s");
    }
    assert_int_equal(leftovers(), 0);
    unlink(at("s.json"));
}

static void signals_remove_the_new_files(void **state)
{
    (void)state;
    static const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGALRM};
    for (no_unnamed = 0; no_unnamed < 2; no_unnamed++) {
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
            signal_while_writing(sigs[i], 0);
        signal_while_writing(SIGINT, 1); /* ignored before: stays ignored */
    }
    no_unnamed = 0;
}

/* A run killed outright (SIGKILL, which no handler sees) while its new files are staged:
 * unnamed, they are gone with it; named, the next write removes them. Killed runs never
 * accumulate files in the folder either way. */
static void killed_runs_leave_nothing_behind(void **state)
{
    (void)state;
    for (no_unnamed = 0; no_unnamed < 2; no_unnamed++)
        for (int run = 0; run < 3; run++)
            signal_while_writing(SIGKILL, 0);
    no_unnamed = 0;
}

/* How many names (but . and ..) the folder holds. */
static int entries_in(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* Synced to the disk only when asked: each new file and each folder once with
 * CLI_OUTPUTS_DURABLE, nothing without; replaced atomically either way. The last file renamed
 * keeps no link to its previous version (nothing after it can fail and undo it). */
static void a_set_is_synced_only_when_durable(void **state)
{
    (void)state;
    cli_error e;
    assert_int_equal(mkdir(at("durable"), 0755), 0);
    put_file(at("d1.json"), "old 1");
    put_file(at("d2.json"), "old 2");
    put_file(at("durable/d3.json"), "old 3");
    cli_output set[3] = {out(at("d1.json"), "new 1"), out(at("durable/d3.json"), "new 3"),
                         out(at("d2.json"), "new 2")};
    for (int durable = 0; durable < 2; durable++) {
        fsyncs_made = links_made = 0;
        assert_int_equal(cli_outputs_write(set, 3, durable ? CLI_OUTPUTS_DURABLE : 0, &e), 0);
        /* three files, and with durable the two folders they are in */
        assert_int_equal(fsyncs_made, durable ? 3 + 2 : 0);
        assert_int_equal(links_made, 2);
        expect_text(at("d1.json"), "new 1");
        expect_text(at("d2.json"), "new 2");
        expect_text(at("durable/d3.json"), "new 3");
        assert_int_equal(leftovers(), 0);
        assert_int_equal(entries_in(at("durable")), 1);
        put_file(at("d1.json"), "old 1");
        put_file(at("d2.json"), "old 2");
        put_file(at("durable/d3.json"), "old 3");
    }
    /* not durable, the last rename failing: the first two are put back all the same */
    rename_pass = 2;
    assert_int_equal(cli_outputs_write(set, 3, 0, &e), -1);
    assert_int_equal(e.index, 2);
    expect_text(at("d1.json"), "old 1");
    expect_text(at("d2.json"), "old 2");
    expect_text(at("durable/d3.json"), "old 3");
    assert_int_equal(leftovers(), 0);
    unlink(at("d1.json"));
    unlink(at("d2.json"));
    unlink(at("durable/d3.json"));
    rmdir(at("durable"));
}

/* Leftovers of processes that are gone are removed by the next write that stages its new file
 * by name; a live one's stay. One that stages unnamed files does not read the folder. */
static void leftovers_of_dead_processes_are_swept(void **state)
{
    (void)state;
    no_unnamed = 1;
    pid_t dead = fork();
    if (dead == 0)
        _exit(0);
    waitpid(dead, NULL, 0);
    char name[600];
    snprintf(name, sizeof name, "%s.zkpipe-new-%ld", at("w.json"), (long)dead);
    put_file(name, "stale new");
    snprintf(name, sizeof name, "%s.zkpipe-old-%ld", at("w.json"), (long)dead);
    put_file(name, "stale old");
    snprintf(name, sizeof name, "%s.zkpipe-new-%ld", at("w.json"), (long)getppid());
    put_file(name, "a live process's");
    snprintf(name, sizeof name, "%s.zkpipe-new-%ld", at("other.json"), (long)dead);
    put_file(name, "another output's");
    cli_error e;
    cli_output set[1] = {out(at("w.json"), "w")};
    if (unnamed_here()) {
        no_unnamed = 0;
        assert_int_equal(cli_outputs_write(set, 1, 0, &e), 0);
        assert_int_equal(leftovers(), 4);
        no_unnamed = 1;
    }
    assert_int_equal(cli_outputs_write(set, 1, 0, &e), 0);
    no_unnamed = 0;
    assert_int_equal(leftovers(), 2);
    snprintf(name, sizeof name, "%s.zkpipe-new-%ld", at("w.json"), (long)getppid());
    expect_text(name, "a live process's");
    unlink(name);
    snprintf(name, sizeof name, "%s.zkpipe-new-%ld", at("other.json"), (long)dead);
    unlink(name);
    unlink(at("w.json"));
}

/* A zkey truncated after it was mapped: with the guard, an I/O error naming it and exit
 * status 1; without, death by SIGBUS. */
static void truncate_while_mapped(int guard)
{
    const char *src = getenv("ZKPIPE_SOURCE_DIR");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cp '%s/tests/interop/fixtures/bn128/multiplier/circuit.zkey' '%s'",
             src != NULL ? src : ".", at("c.zkey"));
    assert_int_equal(system(cmd), 0);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        const char *path = at("c.zkey");
        char wpath[2048];
        snprintf(wpath, sizeof wpath, "%s/tests/interop/fixtures/bn128/multiplier/witness.wtns",
                 src != NULL ? src : ".");
        /* among inputs that do not change (a batch of witnesses), the one that shrinks named */
        const char *inputs[20] = {NULL};
        for (int i = 0; i < 19; i++)
            inputs[i] = i == 13 ? path : wpath;
        signal(SIGBUS, SIG_DFL); /* cmocka's handler, inherited */
        if (guard && cli_mapped_guard("prog", inputs, 20) != 0)
            _exit(4);
        if (guard && (cli_mapped_guard("prog", inputs, 20) != -1 || errno != EBUSY))
            _exit(8);
        zkpipe_zkey *z;
        zkpipe_wtns *w;
        zkpipe_groth16_vk *vk;
        zkpipe_groth16_pvk *pvk;
        zkpipe_groth16_proof proof;
        if (zkpipe_zkey_open(&z, NULL, 0, path, NULL) != ZKPIPE_OK ||
            zkpipe_wtns_open(&w, NULL, 0, wpath, NULL) != ZKPIPE_OK ||
            zkpipe_zkey_vk(&vk, z, NULL) != ZKPIPE_OK ||
            zkpipe_groth16_pvk_create(&pvk, vk, NULL) != ZKPIPE_OK)
            _exit(5);
        if (truncate(path, 0) != 0)
            _exit(6);
        /* reads the coefficients from the map */
        zkpipe_groth16_prove_witness(&proof, NULL, NULL, 0, zkpipe_zkey_pk(z),
                                     zkpipe_wtns_values(w), zkpipe_wtns_count(w), pvk, NULL,
                                     ZKPIPE_BACKEND_CPU, NULL);
        _exit(7);
    }
    close(fds[1]);
    char buf[2048];
    size_t n = 0;
    ssize_t r;
    while ((r = read(fds[0], buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = '\0';
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    if (guard) {
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 1)
            fail_msg("guarded: status %#x, stderr \"%s\"", status, buf);
        assert_non_null(strstr(buf, at("c.zkey")));
        assert_null(strstr(buf, "witness.wtns"));
        assert_non_null(strstr(buf, "prog: "));
        assert_non_null(strstr(buf, "I/O error: the file shrank"));
        assert_non_null(strchr(buf, '\n'));
        assert_ptr_equal(strchr(buf, '\n'), buf + n - 1); /* one line */
    } else {
        if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGBUS)
            fail_msg("unguarded: status %#x, stderr \"%s\"", status, buf);
    }
    unlink(at("c.zkey"));
}

static void a_truncated_mapped_input_is_an_io_error(void **state)
{
    (void)state;
    truncate_while_mapped(0);
    truncate_while_mapped(1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_paths_are_refused_before_anything_is_written),
        cmocka_unit_test(hard_links_of_one_file_are_one_output),
        cmocka_unit_test(outputs_that_are_inputs_are_refused),
        cmocka_unit_test(inputs_that_are_not_regular_files_are_refused),
        cmocka_unit_test(files_are_replaced_and_keep_their_mode),
        cmocka_unit_test(symbolic_links_are_followed),
        cmocka_unit_test(devices_fifos_and_descriptors_are_written_through),
        cmocka_unit_test(a_failed_rename_puts_everything_back),
        cmocka_unit_test(a_file_size_limit_is_an_error),
        cmocka_unit_test(signals_remove_the_new_files),
        cmocka_unit_test(killed_runs_leave_nothing_behind),
        cmocka_unit_test(a_set_is_synced_only_when_durable),
        cmocka_unit_test(leftovers_of_dead_processes_are_swept),
        cmocka_unit_test(a_truncated_mapped_input_is_an_io_error),
    };
    return cmocka_run_group_tests(tests, scratch_dir_setup, scratch_dir_teardown);
}
