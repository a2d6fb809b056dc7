/*
 * Exercises the utility functions of libpmix.so.2 the way C programs and
 * Open MPI use them: header macros (which allocate and free with libc)
 * mixed with the library's functions. Built against Debian's OpenPMIx 4.2.2
 * headers and linked against pmix-rs's libpmix.so.2 by tests/c_programs.rs,
 * which also runs it under valgrind where available: every path must be
 * free of invalid reads/writes/frees and leaks.
 *
 * Prints "util: N checks passed" and exits 0, or lists each failed check
 * and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

static int checks, failures;

#define CHECK(cond)                                                          \
    do {                                                                     \
        checks++;                                                            \
        if (!(cond)) {                                                       \
            failures++;                                                      \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                  \
        }                                                                    \
    } while (0)

#define CHECK_STR(a, b) CHECK((a) != NULL && strcmp((a), (b)) == 0)

static void test_version_and_strings(void)
{
    const char *v = PMIx_Get_version();
    CHECK(v != NULL && v[0] >= '3');
    CHECK(strstr(v, "pmix-rs") != NULL); /* our library, not OpenPMIx */
    CHECK_STR(PMIx_Error_string(PMIX_SUCCESS), "SUCCESS");
    CHECK_STR(PMIx_Error_string(PMIX_ERR_NOT_FOUND), "NOT-FOUND");
    CHECK_STR(PMIx_Error_string(PMIX_ERR_NOT_SUPPORTED), "NOT-SUPPORTED");
    CHECK_STR(PMIx_Error_string(-12345), "ERROR STRING NOT FOUND");
    CHECK_STR(PMIx_Proc_state_string(PMIX_PROC_STATE_RUNNING), "PROC EXECUTING");
    CHECK_STR(PMIx_Job_state_string(PMIX_JOB_STATE_TERMINATED), "TERMINATED");
    CHECK_STR(PMIx_Scope_string(PMIX_GLOBAL), "SHARE ACROSS ALL NODES");
    CHECK_STR(PMIx_Persistence_string(PMIX_PERSIST_FIRST_READ), "DELETE ON FIRST ACCESS");
    CHECK_STR(PMIx_Data_range_string(PMIX_RANGE_PROC_LOCAL), "AVAIL ON LOCAL PROC ONLY");
    CHECK_STR(PMIx_Data_type_string(PMIX_UINT16), "PMIX_UINT16");
    CHECK_STR(PMIx_Data_type_string(4999), "UNKNOWN");
    CHECK_STR(PMIx_IOF_channel_string(PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL),
              "STDOUT STDERR ");
    CHECK_STR(PMIx_Value_comparison_string(PMIX_VALUE2_GREATER), "VALUE2 GREATER");
    char *dir = PMIx_Info_directives_string(PMIX_INFO_REQD | PMIX_INFO_REQD_PROCESSED);
    CHECK_STR(dir, "REQUIRED:PROCESSED");
    free(dir);
    CHECK_STR(PMIx_Get_attribute_string("PMIX_JOB_SIZE"), PMIX_JOB_SIZE);
    CHECK_STR(PMIx_Get_attribute_name(PMIX_EVENT_HDLR_PREPEND), "PMIX_EVENT_HDLR_PREPEND");
}

/* ext3x register_cleanup: PMIx_Info_load into an uninitialised stack info */
static void test_info_load(void)
{
    pmix_info_t info;
    memset(&info, 0xab, sizeof(info));
    CHECK(PMIx_Info_load(&info, "pmix.clnup.recurse", NULL, PMIX_BOOL) == PMIX_SUCCESS);
    CHECK(info.flags == 0);
    CHECK(info.value.type == PMIX_BOOL && info.value.data.flag == true);
    CHECK(PMIX_INFO_TRUE(&info));
    CHECK(PMIX_CHECK_KEY(&info, "pmix.clnup.recurse"));
    PMIX_INFO_DESTRUCT(&info);

    memset(&info, 0xab, sizeof(info));
    CHECK(PMIx_Info_load(&info, "k", NULL, PMIX_STRING) == PMIX_SUCCESS);
    CHECK(info.value.type == PMIX_STRING && info.value.data.string == NULL);
    PMIX_INFO_DESTRUCT(&info);

    char longkey[700];
    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    CHECK(PMIx_Info_load(&info, longkey, "v", PMIX_STRING) == PMIX_SUCCESS);
    CHECK(strlen(info.key) == PMIX_MAX_KEYLEN);
    CHECK_STR(info.value.data.string, "v");
    PMIX_INFO_DESTRUCT(&info);

    CHECK(PMIx_Info_load(&info, NULL, "v", PMIX_STRING) == PMIX_ERR_BAD_PARAM);

    /* the header macros over the library: create, load, free */
    pmix_info_t *arr;
    uint16_t lrank = 3;
    PMIX_INFO_CREATE(arr, 3);
    PMIX_INFO_LOAD(&arr[0], PMIX_LOCAL_RANK, &lrank, PMIX_UINT16);
    PMIX_INFO_LOAD(&arr[1], PMIX_HOSTNAME, "node1", PMIX_STRING);
    PMIX_INFO_LOAD(&arr[2], PMIX_OPTIONAL, NULL, PMIX_BOOL);
    CHECK(arr[0].value.data.uint16 == 3);
    CHECK_STR(arr[1].value.data.string, "node1");
    pmix_info_t copy;
    CHECK(PMIx_Info_xfer(&copy, &arr[1]) == PMIX_SUCCESS);
    CHECK(copy.value.data.string != arr[1].value.data.string);
    CHECK_STR(copy.value.data.string, "node1");
    PMIX_INFO_DESTRUCT(&copy);
    PMIX_INFO_FREE(arr, 3);
}

static void test_value_load_unload(void)
{
    pmix_value_t v;
    int x = 42, out = 0;
    void *data;
    size_t sz = 0;

    CHECK(PMIx_Value_load(&v, &x, PMIX_INT) == PMIX_SUCCESS);
    data = &out;
    CHECK(PMIx_Value_unload(&v, &data, &sz) == PMIX_SUCCESS);
    CHECK(data == &out && out == 42 && sz == sizeof(int));
    data = NULL;
    CHECK(PMIx_Value_unload(&v, &data, &sz) == PMIX_ERR_BAD_PARAM);

    CHECK(PMIx_Value_load(&v, "hello", PMIX_STRING) == PMIX_SUCCESS);
    data = NULL;
    CHECK(PMIx_Value_unload(&v, &data, &sz) == PMIX_SUCCESS);
    CHECK(data != NULL && data != v.data.string && strcmp(data, "hello") == 0 && sz == 5);
    free(data);
    PMIx_Value_destruct(&v);
    CHECK(v.type == PMIX_UNDEF);

    pmix_byte_object_t bo = {.bytes = "abc", .size = 3};
    CHECK(PMIx_Value_load(&v, &bo, PMIX_BYTE_OBJECT) == PMIX_SUCCESS);
    CHECK(v.data.bo.bytes != bo.bytes && v.data.bo.size == 3);
    data = NULL;
    CHECK(PMIx_Value_unload(&v, &data, &sz) == PMIX_SUCCESS);
    CHECK(data == v.data.bo.bytes && sz == 3); /* 4.2.2: by reference */
    PMIx_Value_destruct(&v);

    pmix_proc_t p, pout;
    PMIX_LOAD_PROCID(&p, "job-1", 7);
    CHECK(PMIx_Value_load(&v, &p, PMIX_PROC) == PMIX_SUCCESS);
    CHECK(v.data.proc != &p && PMIX_CHECK_PROCID(v.data.proc, &p));
    data = &pout;
    CHECK(PMIx_Value_unload(&v, &data, &sz) == PMIX_SUCCESS);
    CHECK(sz == sizeof(pmix_proc_t) && PMIX_CHECK_PROCID(&pout, &p) && pout.rank == 7);
    PMIx_Value_destruct(&v);

    pmix_envar_t en = {.envar = "PATH", .value = "/bin", .separator = ':'};
    CHECK(PMIx_Value_load(&v, &en, PMIX_ENVAR) == PMIX_SUCCESS);
    data = NULL;
    CHECK(PMIx_Value_unload(&v, &data, &sz) == PMIX_SUCCESS);
    pmix_envar_t *eo = data;
    CHECK(eo != NULL && strcmp(eo->envar, "PATH") == 0 && eo->separator == ':');
    PMIX_ENVAR_FREE(eo, 1);
    PMIx_Value_destruct(&v);

    int ints[3] = {1, 2, 3};
    pmix_data_array_t da = {.type = PMIX_INT, .size = 3, .array = ints};
    CHECK(PMIx_Value_load(&v, &da, PMIX_DATA_ARRAY) == PMIX_SUCCESS);
    CHECK(v.data.darray != &da && v.data.darray->array != ints);
    CHECK(((int *)v.data.darray->array)[2] == 3);
    data = NULL;
    CHECK(PMIx_Value_unload(&v, &data, &sz) == PMIX_SUCCESS);
    pmix_data_array_t *dout = data;
    CHECK(dout != NULL && dout->size == 3 && ((int *)dout->array)[1] == 2);
    PMIX_DATA_ARRAY_FREE(dout);
    PMIx_Value_destruct(&v);

    /* NULL data: zero, except BOOL which means true */
    CHECK(PMIx_Value_load(&v, NULL, PMIX_BOOL) == PMIX_SUCCESS && v.data.flag);
    CHECK(PMIx_Value_load(&v, NULL, PMIX_UINT64) == PMIX_SUCCESS && v.data.uint64 == 0);

    /* a type a value cannot hold */
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    CHECK(PMIx_Value_load(&v, &info, PMIX_INFO) == PMIX_ERR_NOT_SUPPORTED);
    CHECK(v.type == PMIX_UNDEF);
}

/* Open MPI builds values with malloc and releases them only through
 * PMIx_Value_destruct (rule R1 of docs/CAPI.md): every free below is
 * ours. */
static void test_destruct_frees_caller_memory(void)
{
    pmix_value_t v;

    v.type = PMIX_STRING;
    v.data.string = strdup("owned by the caller");
    PMIx_Value_destruct(&v);
    CHECK(v.type == PMIX_UNDEF && v.data.string == NULL);

    v.type = PMIX_PROC;
    PMIX_PROC_CREATE(v.data.proc, 1);
    PMIX_LOAD_PROCID(v.data.proc, "ns", 1);
    PMIx_Value_destruct(&v);

    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = malloc(10);
    memset(v.data.bo.bytes, 1, 10);
    v.data.bo.size = 10;
    PMIx_Value_destruct(&v);

    v.type = PMIX_PROC_INFO;
    PMIX_PROC_INFO_CREATE(v.data.pinfo, 1);
    v.data.pinfo->hostname = strdup("node");
    v.data.pinfo->executable_name = strdup("a.out");
    PMIx_Value_destruct(&v);

    v.type = PMIX_ENVAR;
    v.data.envar.envar = strdup("X");
    v.data.envar.value = strdup("1");
    PMIx_Value_destruct(&v);

    /* pmix.pdata-like nesting: array of infos holding a string array */
    pmix_data_array_t *outer, *inner;
    PMIX_DATA_ARRAY_CREATE(outer, 2, PMIX_INFO);
    pmix_info_t *oi = outer->array;
    pmix_rank_t rank = 0;
    PMIX_INFO_LOAD(&oi[0], PMIX_RANK, &rank, PMIX_PROC_RANK);
    PMIX_DATA_ARRAY_CREATE(inner, 2, PMIX_STRING);
    ((char **)inner->array)[0] = strdup("a");
    ((char **)inner->array)[1] = strdup("b");
    PMIX_INFO_LOAD(&oi[1], "my.list", inner, PMIX_DATA_ARRAY); /* copies */
    PMIX_DATA_ARRAY_FREE(inner);
    v.type = PMIX_DATA_ARRAY;
    v.data.darray = outer;
    PMIx_Value_destruct(&v);
    CHECK(v.type == PMIX_UNDEF);

    /* PMIX_VALUE_RELEASE on a malloc'd value, as after PMIx_Get */
    pmix_value_t *pv;
    PMIX_VALUE_CREATE(pv, 1);
    uint32_t size = 4;
    PMIX_VALUE_LOAD(pv, &size, PMIX_UINT32);
    CHECK(pv->type == PMIX_UINT32 && pv->data.uint32 == 4);
    PMIX_VALUE_RELEASE(pv);
    CHECK(pv == NULL);
}

static void test_xfer_and_compare(void)
{
    pmix_value_t a, b;
    pmix_data_array_t *da;
    PMIX_DATA_ARRAY_CREATE(da, 2, PMIX_INFO);
    pmix_info_t *ia = da->array;
    uint32_t n = 5;
    PMIX_INFO_LOAD(&ia[0], "k1", "v1", PMIX_STRING);
    PMIX_INFO_LOAD(&ia[1], "k2", &n, PMIX_UINT32);
    CHECK(PMIx_Value_load(&a, da, PMIX_DATA_ARRAY) == PMIX_SUCCESS);
    PMIX_DATA_ARRAY_FREE(da);
    CHECK(PMIx_Value_xfer(&b, &a) == PMIX_SUCCESS);
    CHECK(b.type == PMIX_DATA_ARRAY && b.data.darray != a.data.darray);
    pmix_info_t *ib = b.data.darray->array;
    CHECK(ib[0].value.data.string != ((pmix_info_t *)a.data.darray->array)[0].value.data.string);
    CHECK_STR(ib[0].value.data.string, "v1");
    CHECK(ib[1].value.data.uint32 == 5);
    CHECK(PMIx_Value_compare(&a, &b) == PMIX_EQUAL);
    ib[1].value.data.uint32 = 6;
    CHECK(PMIx_Value_compare(&a, &b) == PMIX_VALUE_COMPARISON_NOT_AVAIL);
    PMIx_Value_destruct(&a);
    PMIx_Value_destruct(&b);

    int one = 1, two = 2;
    double d1 = 1.5, d2 = 2.5;
    PMIx_Value_load(&a, &one, PMIX_INT);
    PMIx_Value_load(&b, &two, PMIX_INT);
    CHECK(PMIx_Value_compare(&a, &b) == PMIX_VALUE2_GREATER);
    CHECK(PMIx_Value_compare(&b, &a) == PMIX_VALUE1_GREATER);
    CHECK(PMIx_Value_compare(&a, &a) == PMIX_EQUAL);
    PMIx_Value_load(&b, &d2, PMIX_DOUBLE);
    CHECK(PMIx_Value_compare(&a, &b) == PMIX_VALUE_TYPE_DIFFERENT);
    PMIx_Value_load(&a, &d1, PMIX_DOUBLE);
    CHECK(PMIx_Value_compare(&a, &b) == PMIX_VALUE2_GREATER);
    PMIx_Value_load(&a, "abc", PMIX_STRING);
    PMIx_Value_load(&b, "abd", PMIX_STRING);
    CHECK(PMIx_Value_compare(&a, &b) == PMIX_VALUE2_GREATER);
    PMIx_Value_destruct(&a);
    PMIx_Value_destruct(&b);

    pmix_proc_t p1, p2;
    PMIX_LOAD_PROCID(&p1, "a", 1);
    PMIX_LOAD_PROCID(&p2, "a", 2);
    PMIx_Value_load(&a, &p1, PMIX_PROC);
    PMIx_Value_load(&b, &p2, PMIX_PROC);
    CHECK(PMIx_Value_compare(&a, &b) == PMIX_VALUE2_GREATER);
    PMIx_Value_destruct(&a);
    PMIx_Value_destruct(&b);

    /* xfer of every inline kind through the header macro */
    pmix_value_t *pv;
    pmix_value_t src;
    struct timeval tv = {5, 6};
    PMIx_Value_load(&src, &tv, PMIX_TIMEVAL);
    PMIX_VALUE_CREATE(pv, 1);
    CHECK(PMIx_Value_xfer(pv, &src) == PMIX_SUCCESS);
    CHECK(pv->data.tv.tv_sec == 5 && pv->data.tv.tv_usec == 6);
    PMIX_VALUE_RELEASE(pv);
    CHECK(PMIx_Value_xfer(NULL, &src) == PMIX_ERR_BAD_PARAM);
}

static void test_data_arrays(void)
{
    pmix_data_array_t da;
    PMIX_DATA_ARRAY_CONSTRUCT(&da, 3, PMIX_PROC);
    pmix_proc_t *procs = da.array;
    for (int i = 0; i < 3; i++)
        PMIX_LOAD_PROCID(&procs[i], "ns", i);
    PMIx_Data_array_destruct(&da);
    CHECK(da.type == PMIX_UNDEF && da.size == 0 && da.array == NULL);

    PMIX_DATA_ARRAY_CONSTRUCT(&da, 2, PMIX_BYTE_OBJECT);
    pmix_byte_object_t *bos = da.array;
    bos[0].bytes = strdup("xyz");
    bos[0].size = 3;
    PMIX_DATA_ARRAY_DESTRUCT(&da);

    PMIX_DATA_ARRAY_CONSTRUCT(&da, 2, PMIX_APP);
    pmix_app_t *apps = da.array;
    pmix_status_t rc_unused;
    apps[0].cmd = strdup("hostname");
    PMIX_ARGV_APPEND(rc_unused, apps[0].argv, "hostname");
    PMIX_ARGV_APPEND(rc_unused, apps[0].env, "A=1");
    CHECK(rc_unused == PMIX_SUCCESS);
    apps[0].maxprocs = 2;
    PMIX_INFO_CREATE(apps[0].info, 1);
    apps[0].ninfo = 1;
    PMIX_INFO_LOAD(&apps[0].info[0], PMIX_WDIR, "/tmp", PMIX_STRING);
    pmix_value_t v;
    CHECK(PMIx_Value_load(&v, &da, PMIX_DATA_ARRAY) == PMIX_SUCCESS);
    pmix_app_t *ac = v.data.darray->array;
    CHECK(ac[0].cmd != apps[0].cmd && strcmp(ac[0].cmd, "hostname") == 0);
    CHECK_STR(ac[0].env[0], "A=1");
    CHECK(ac[0].ninfo == 1 && strcmp(ac[0].info[0].value.data.string, "/tmp") == 0);
    PMIx_Value_destruct(&v);
    PMIX_DATA_ARRAY_DESTRUCT(&da);

    PMIx_Data_array_destruct(NULL);
}

static void test_info_lists(void)
{
    void *list = PMIx_Info_list_start();
    pmix_data_array_t da;
    CHECK(list != NULL);
    CHECK(PMIx_Info_list_convert(list, &da) == PMIX_ERR_EMPTY);
    CHECK(da.size == 0 && da.array == NULL);

    uint32_t n = 7;
    CHECK(PMIx_Info_list_add(list, "a", &n, PMIX_UINT32) == PMIX_SUCCESS);
    CHECK(PMIx_Info_list_add(list, "b", "str", PMIX_STRING) == PMIX_SUCCESS);
    CHECK(PMIx_Info_list_add(list, "c", NULL, PMIX_BOOL) == PMIX_SUCCESS);
    pmix_info_t x;
    PMIX_INFO_LOAD(&x, "d", "dd", PMIX_STRING);
    PMIX_INFO_REQUIRED(&x);
    CHECK(PMIx_Info_list_xfer(list, &x) == PMIX_SUCCESS);
    pmix_info_t y;
    PMIX_INFO_LOAD(&y, "e", "ee", PMIX_STRING);
    CHECK(PMIx_Info_list_insert(list, &y) == PMIX_SUCCESS);
    CHECK(PMIx_Info_list_add(NULL, "a", &n, PMIX_UINT32) == PMIX_ERR_BAD_PARAM);

    CHECK(PMIx_Info_list_convert(list, &da) == PMIX_SUCCESS);
    CHECK(da.type == PMIX_INFO && da.size == 5);
    pmix_info_t *ia = da.array;
    CHECK(PMIX_CHECK_KEY(&ia[0], "a") && ia[0].value.data.uint32 == 7);
    CHECK_STR(ia[1].value.data.string, "str");
    CHECK(ia[2].value.type == PMIX_BOOL && ia[2].value.data.flag);
    CHECK(PMIX_INFO_IS_REQUIRED(&ia[3]) && ia[3].value.data.string != x.value.data.string);
    CHECK(ia[4].value.data.string == y.value.data.string); /* inserted: by reference */
    CHECK(PMIX_INFO_IS_PERSISTENT(&ia[4]));
    PMIx_Info_list_release(list);
    CHECK_STR(y.value.data.string, "ee"); /* still ours */
    PMIX_DATA_ARRAY_DESTRUCT(&da);
    PMIX_INFO_DESTRUCT(&x);
    PMIX_INFO_DESTRUCT(&y);

    /* the header's list macros */
    void *l2;
    pmix_status_t rc;
    PMIX_INFO_LIST_START(l2);
    PMIX_INFO_LIST_ADD(rc, l2, PMIX_TIMEOUT, &n, PMIX_UINT32);
    CHECK(rc == PMIX_SUCCESS);
    PMIX_INFO_LIST_CONVERT(rc, l2, &da);
    CHECK(rc == PMIX_SUCCESS && da.size == 1);
    PMIX_INFO_LIST_RELEASE(l2);
    PMIX_DATA_ARRAY_DESTRUCT(&da);
}

static void test_printing(void)
{
    pmix_value_t v;
    uint32_t n = 32;
    PMIx_Value_load(&v, &n, PMIX_UINT32);
    char *s = PMIx_Value_string(&v);
    CHECK_STR(s, " PMIX_VALUE:  Data type: PMIX_UINT32\tValue: 32");
    free(s);
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_JOB_SIZE, &n, PMIX_UINT32);
    s = PMIx_Info_string(&info);
    CHECK(s != NULL && strstr(s, "KEY: PMIX_JOB_SIZE") != NULL);
    free(s);
    PMIX_INFO_DESTRUCT(&info);
}

int main(void)
{
    test_version_and_strings();
    test_info_load();
    test_value_load_unload();
    test_destruct_frees_caller_memory();
    test_xfer_and_compare();
    test_data_arrays();
    test_info_lists();
    test_printing();
    if (failures) {
        fprintf(stderr, "util: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("util: %d checks passed\n", checks);
    return 0;
}
