/*
 * The PMIx v5 helper functions of libpmix.so.2 (construct/destruct/
 * create/free/load/xfer of the public structs, info flags, argv, setenv,
 * the info-list additions, text helpers, pmix_framework_names), used the
 * way Open MPI 5 uses them. Built against Debian's OpenPMIx 4.2.2 headers
 * (for the types), which do not declare these functions: their v5
 * prototypes are declared here. Run by tests/v5_helpers.rs on pmix-rs,
 * also under valgrind: every create has its free, so any leak, invalid
 * read/write or double free is an error.
 *
 * Prints "v5_helpers: N checks passed" and exits 0, or lists each failed
 * check and exits 1.
 */
#define _GNU_SOURCE
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the v5 prototypes (OpenPMIx 5.0 pmix.h) ---- */
void PMIx_Load_key(pmix_key_t key, const char *src);
bool PMIx_Check_key(const char *key, const char *str);
bool PMIx_Check_reserved_key(const char *key);
void PMIx_Load_nspace(pmix_nspace_t nspace, const char *str);
bool PMIx_Check_nspace(const char *key1, const char *key2);
bool PMIx_Nspace_invalid(const char *nspace);
void PMIx_Load_procid(pmix_proc_t *p, const char *ns, pmix_rank_t rk);
void PMIx_Xfer_procid(pmix_proc_t *dst, const pmix_proc_t *src);
bool PMIx_Check_procid(const pmix_proc_t *a, const pmix_proc_t *b);
bool PMIx_Check_rank(pmix_rank_t a, pmix_rank_t b);
bool PMIx_Procid_invalid(const pmix_proc_t *p);
int PMIx_Argv_count(char **a);
pmix_status_t PMIx_Argv_append_nosize(char ***argv, const char *arg);
pmix_status_t PMIx_Argv_prepend_nosize(char ***argv, const char *arg);
pmix_status_t PMIx_Argv_append_unique_nosize(char ***argv, const char *arg);
void PMIx_Argv_free(char **argv);
char **PMIx_Argv_split(const char *src_string, int delimiter);
char **PMIx_Argv_split_with_empty(const char *src_string, int delimiter);
char *PMIx_Argv_join(char **argv, int delimiter);
char **PMIx_Argv_copy(char **argv);
pmix_status_t PMIx_Setenv(const char *name, const char *value, bool overwrite, char ***env);
void PMIx_Value_construct(pmix_value_t *val);
pmix_value_t *PMIx_Value_create(size_t n);
void PMIx_Value_free(pmix_value_t *v, size_t n);
pmix_boolean_t PMIx_Value_true(const pmix_value_t *v);
pmix_status_t PMIx_Value_get_size(const pmix_value_t *val, size_t *size);
pmix_status_t PMIx_Info_get_size(const pmix_info_t *val, size_t *size);
void PMIx_Data_array_init(pmix_data_array_t *p, pmix_data_type_t type);
void PMIx_Data_array_construct(pmix_data_array_t *p, size_t num, pmix_data_type_t type);
pmix_data_array_t *PMIx_Data_array_create(size_t n, pmix_data_type_t type);
void PMIx_Data_array_free(pmix_data_array_t *p);
void PMIx_Info_construct(pmix_info_t *p);
void PMIx_Info_destruct(pmix_info_t *p);
pmix_info_t *PMIx_Info_create(size_t n);
void PMIx_Info_free(pmix_info_t *p, size_t n);
pmix_boolean_t PMIx_Info_true(const pmix_info_t *p);
void PMIx_Info_required(pmix_info_t *p);
void PMIx_Info_optional(pmix_info_t *p);
bool PMIx_Info_is_required(const pmix_info_t *p);
bool PMIx_Info_is_optional(const pmix_info_t *p);
void PMIx_Info_processed(pmix_info_t *p);
bool PMIx_Info_was_processed(const pmix_info_t *p);
void PMIx_Info_set_end(pmix_info_t *p);
bool PMIx_Info_is_end(const pmix_info_t *p);
void PMIx_Info_qualifier(pmix_info_t *p);
bool PMIx_Info_is_qualifier(const pmix_info_t *p);
void PMIx_Info_persistent(pmix_info_t *p);
bool PMIx_Info_is_persistent(const pmix_info_t *p);
pmix_status_t PMIx_Info_list_add_unique(void *ptr, const char *key, const void *value,
                                        pmix_data_type_t type, bool overwrite);
pmix_status_t PMIx_Info_list_add_value(void *ptr, const char *key, const pmix_value_t *value);
pmix_status_t PMIx_Info_list_add_value_unique(void *ptr, const char *key,
                                              const pmix_value_t *value, bool overwrite);
pmix_status_t PMIx_Info_list_prepend(void *ptr, const char *key, const void *value,
                                     pmix_data_type_t type);
pmix_status_t PMIx_Info_list_xfer_unique(void *ptr, const pmix_info_t *info, bool overwrite);
pmix_info_t *PMIx_Info_list_get_info(void *ptr, void *prev, void **next);
void PMIx_Coord_construct(pmix_coord_t *m);
void PMIx_Coord_destruct(pmix_coord_t *m);
pmix_coord_t *PMIx_Coord_create(size_t dims, size_t number);
void PMIx_Coord_free(pmix_coord_t *m, size_t number);
pmix_topology_t *PMIx_Topology_create(size_t n);
void PMIx_Topology_free(pmix_topology_t *t, size_t n);
void PMIx_Cpuset_construct(pmix_cpuset_t *cpuset);
pmix_cpuset_t *PMIx_Cpuset_create(size_t n);
void PMIx_Cpuset_free(pmix_cpuset_t *c, size_t n);
pmix_geometry_t *PMIx_Geometry_create(size_t n);
void PMIx_Geometry_free(pmix_geometry_t *g, size_t n);
void PMIx_Device_distance_construct(pmix_device_distance_t *d);
pmix_device_distance_t *PMIx_Device_distance_create(size_t n);
void PMIx_Device_distance_free(pmix_device_distance_t *d, size_t n);
void PMIx_Byte_object_construct(pmix_byte_object_t *b);
void PMIx_Byte_object_destruct(pmix_byte_object_t *g);
pmix_byte_object_t *PMIx_Byte_object_create(size_t n);
void PMIx_Byte_object_free(pmix_byte_object_t *g, size_t n);
void PMIx_Byte_object_load(pmix_byte_object_t *b, char *d, size_t sz);
pmix_endpoint_t *PMIx_Endpoint_create(size_t n);
void PMIx_Endpoint_free(pmix_endpoint_t *e, size_t n);
pmix_envar_t *PMIx_Envar_create(size_t n);
void PMIx_Envar_free(pmix_envar_t *e, size_t n);
void PMIx_Envar_load(pmix_envar_t *e, char *var, char *value, char separator);
void PMIx_Data_buffer_construct(pmix_data_buffer_t *b);
void PMIx_Data_buffer_destruct(pmix_data_buffer_t *b);
pmix_data_buffer_t *PMIx_Data_buffer_create(void);
void PMIx_Data_buffer_release(pmix_data_buffer_t *b);
void PMIx_Data_buffer_load(pmix_data_buffer_t *b, char *bytes, size_t sz);
void PMIx_Data_buffer_unload(pmix_data_buffer_t *b, char **bytes, size_t *sz);
void PMIx_Proc_construct(pmix_proc_t *p);
pmix_proc_t *PMIx_Proc_create(size_t n);
void PMIx_Proc_free(pmix_proc_t *p, size_t n);
void PMIx_Proc_load(pmix_proc_t *p, const char *nspace, pmix_rank_t rank);
void PMIx_Multicluster_nspace_construct(pmix_nspace_t target, pmix_nspace_t cluster,
                                        pmix_nspace_t nspace);
void PMIx_Multicluster_nspace_parse(pmix_nspace_t target, pmix_nspace_t cluster,
                                    pmix_nspace_t nspace);
pmix_proc_info_t *PMIx_Proc_info_create(size_t n);
void PMIx_Proc_info_free(pmix_proc_info_t *p, size_t n);
void PMIx_Pdata_construct(pmix_pdata_t *p);
void PMIx_Pdata_destruct(pmix_pdata_t *p);
pmix_pdata_t *PMIx_Pdata_create(size_t n);
void PMIx_Pdata_free(pmix_pdata_t *p, size_t n);
pmix_app_t *PMIx_App_create(size_t n);
void PMIx_App_info_create(pmix_app_t *p, size_t n);
void PMIx_App_free(pmix_app_t *p, size_t n);
void PMIx_App_release(pmix_app_t *p);
void PMIx_Query_construct(pmix_query_t *p);
pmix_query_t *PMIx_Query_create(size_t n);
void PMIx_Query_qualifiers_create(pmix_query_t *p, size_t n);
void PMIx_Query_free(pmix_query_t *p, size_t n);
void PMIx_Query_release(pmix_query_t *p);
pmix_regattr_t *PMIx_Regattr_create(size_t n);
void PMIx_Regattr_free(pmix_regattr_t *p, size_t n);
void PMIx_Regattr_load(pmix_regattr_t *info, const char *name, const char *key,
                       pmix_data_type_t type, const char *description);
void PMIx_Regattr_xfer(pmix_regattr_t *dest, const pmix_regattr_t *src);
pmix_node_stats_t *PMIx_Node_stats_create(size_t n);
void PMIx_Node_stats_free(pmix_node_stats_t *p, size_t n);
pmix_status_t PMIx_Error_code(const char *errname);
char *PMIx_Proc_string(const pmix_proc_t *proc);
char *PMIx_App_string(const pmix_app_t *app);
extern char *pmix_framework_names[];

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

static void test_ids(void)
{
    pmix_key_t key;
    memset(key, 'x', sizeof(key));
    PMIx_Load_key(key, "pmix.job.size");
    CHECK(strcmp(key, "pmix.job.size") == 0 && key[PMIX_MAX_KEYLEN] == 0);
    CHECK(PMIx_Check_key(key, PMIX_JOB_SIZE));
    CHECK(!PMIx_Check_key(key, PMIX_UNIV_SIZE) && !PMIx_Check_key(NULL, key));
    CHECK(PMIx_Check_reserved_key(key) && !PMIx_Check_reserved_key("mine"));

    pmix_proc_t p, q;
    PMIx_Proc_construct(&p);
    CHECK(p.rank == PMIX_RANK_UNDEF && p.nspace[0] == 0);
    CHECK(PMIx_Procid_invalid(&p));
    PMIx_Load_procid(&p, "job-1", 3);
    PMIx_Xfer_procid(&q, &p);
    CHECK(strcmp(q.nspace, "job-1") == 0 && q.rank == 3);
    CHECK(PMIx_Check_procid(&p, &q) && !PMIx_Procid_invalid(&q));
    PMIx_Proc_load(&q, "job-1", PMIX_RANK_WILDCARD);
    CHECK(PMIx_Check_procid(&p, &q) && PMIx_Check_rank(3, PMIX_RANK_WILDCARD));
    PMIx_Load_nspace(q.nspace, "job-2");
    CHECK(!PMIx_Check_procid(&p, &q) && !PMIx_Check_nspace(p.nspace, q.nspace));
    CHECK(PMIx_Check_nspace("", "job-2") && PMIx_Nspace_invalid(NULL));

    pmix_nspace_t target, cluster, ns;
    PMIx_Load_nspace(cluster, "c1");
    PMIx_Load_nspace(ns, "job-9");
    PMIx_Multicluster_nspace_construct(target, cluster, ns);
    CHECK(strcmp(target, "c1:job-9") == 0);
    PMIx_Multicluster_nspace_parse(target, cluster, ns);
    CHECK(strcmp(cluster, "c1") == 0 && strcmp(ns, "job-9") == 0);

    pmix_proc_t *procs = PMIx_Proc_create(3);
    CHECK(procs != NULL && procs[2].rank == PMIX_RANK_UNDEF);
    PMIx_Proc_free(procs, 3);
    CHECK(PMIx_Proc_create(0) == NULL);

    char *s = PMIx_Proc_string(&p);
    CHECK(s != NULL && strstr(s, "job-1") != NULL);
    free(s);
    CHECK(PMIx_Error_code("NOT-FOUND") == PMIX_ERR_NOT_FOUND);
    CHECK(PMIx_Error_code("success") == PMIX_SUCCESS);
    CHECK(PMIx_Error_code("no such error") == INT32_MIN);
    CHECK(pmix_framework_names[0] == NULL);
}

static void test_argv(void)
{
    char **argv = NULL;
    CHECK(PMIx_Argv_append_nosize(&argv, "b") == PMIX_SUCCESS);
    CHECK(PMIx_Argv_prepend_nosize(&argv, "a") == PMIX_SUCCESS);
    CHECK(PMIx_Argv_append_unique_nosize(&argv, "b") == PMIX_SUCCESS);
    CHECK(PMIx_Argv_append_unique_nosize(&argv, "c") == PMIX_SUCCESS);
    CHECK(PMIx_Argv_count(argv) == 3);
    char *joined = PMIx_Argv_join(argv, ',');
    CHECK(joined != NULL && strcmp(joined, "a,b,c") == 0);
    char **copy = PMIx_Argv_copy(argv);
    CHECK(PMIx_Argv_count(copy) == 3 && strcmp(copy[2], "c") == 0);
    PMIx_Argv_free(copy);
    PMIx_Argv_free(argv);
    free(joined);

    char **split = PMIx_Argv_split(":a::b:", ':');
    CHECK(PMIx_Argv_count(split) == 2 && strcmp(split[1], "b") == 0);
    PMIx_Argv_free(split);
    split = PMIx_Argv_split_with_empty(":a::b:", ':');
    CHECK(PMIx_Argv_count(split) == 4 && split[0][0] == 0 && split[2][0] == 0);
    PMIx_Argv_free(split);
    CHECK(PMIx_Argv_split("", ':') == NULL);

    char **env = NULL;
    CHECK(PMIx_Setenv("A", "1", false, &env) == PMIX_SUCCESS);
    CHECK(PMIx_Setenv("A", "2", false, &env) == PMIX_ERR_EXISTS);
    CHECK(PMIx_Setenv("A", "3", true, &env) == PMIX_SUCCESS);
    CHECK(PMIx_Setenv("B", NULL, true, &env) == PMIX_SUCCESS);
    CHECK(PMIx_Argv_count(env) == 2 && strcmp(env[0], "A=3") == 0 && strcmp(env[1], "B=") == 0);
    PMIx_Argv_free(env);
}

static void test_values_and_infos(void)
{
    pmix_value_t *v = PMIx_Value_create(2);
    CHECK(v != NULL && v[1].type == PMIX_UNDEF);
    CHECK(PMIx_Value_true(&v[0]) == PMIX_BOOL_TRUE); /* present, no value */
    PMIx_Value_load(&v[0], "disable", PMIX_STRING);
    CHECK(PMIx_Value_true(&v[0]) == PMIX_BOOL_FALSE);
    size_t sz = 0;
    CHECK(PMIx_Value_get_size(&v[0], &sz) == PMIX_SUCCESS && sz == sizeof(char *) + 8);
    uint32_t u = 5;
    PMIx_Value_load(&v[1], &u, PMIX_UINT32);
    CHECK(PMIx_Value_true(&v[1]) == PMIX_NON_BOOL);
    PMIx_Value_free(v, 2);
    CHECK(PMIx_Value_true(NULL) == PMIX_BOOL_FALSE);

    pmix_info_t *info = PMIx_Info_create(3);
    CHECK(info != NULL && info[2].flags == 0 && info[2].value.type == PMIX_UNDEF);
    PMIx_Info_load(&info[0], "k0", "yes", PMIX_STRING);
    PMIx_Info_load(&info[1], "k1", "a longer string", PMIX_STRING);
    CHECK(PMIx_Info_true(&info[0]) == PMIX_BOOL_TRUE);
    PMIx_Info_required(&info[0]);
    PMIx_Info_qualifier(&info[0]);
    CHECK(PMIx_Info_is_required(&info[0]) && !PMIx_Info_is_optional(&info[0]));
    CHECK(PMIx_Info_is_qualifier(&info[0]) && !PMIx_Info_is_qualifier(&info[1]));
    PMIx_Info_optional(&info[0]);
    CHECK(PMIx_Info_is_optional(&info[0]) && PMIx_Info_is_qualifier(&info[0]));
    PMIx_Info_processed(&info[1]);
    PMIx_Info_set_end(&info[2]);
    CHECK(PMIx_Info_was_processed(&info[1]) && PMIx_Info_is_end(&info[2]));
    CHECK(PMIx_Info_get_size(&info[1], &sz) == PMIX_SUCCESS &&
          sz == sizeof(pmix_info_t) + 3 + sizeof(char *) + 16);
    /* a persistent info does not own its value: destruct leaves it alone */
    pmix_info_t borrowed;
    PMIx_Info_construct(&borrowed);
    borrowed.value = info[1].value;
    PMIx_Info_persistent(&borrowed);
    CHECK(PMIx_Info_is_persistent(&borrowed));
    PMIx_Info_destruct(&borrowed);
    CHECK(strcmp(info[1].value.data.string, "a longer string") == 0);
    PMIx_Info_free(info, 3);

    pmix_data_array_t darray;
    PMIx_Data_array_init(&darray, PMIX_INFO);
    CHECK(darray.type == PMIX_INFO && darray.size == 0 && darray.array == NULL);
    PMIx_Data_array_construct(&darray, 2, PMIX_PROC);
    CHECK(darray.size == 2 && ((pmix_proc_t *) darray.array)[1].rank == PMIX_RANK_UNDEF);
    PMIx_Data_array_destruct(&darray);
    pmix_data_array_t *d = PMIx_Data_array_create(2, PMIX_INFO);
    CHECK(d != NULL && d->size == 2);
    PMIx_Info_load(&((pmix_info_t *) d->array)[0], "x", "owned", PMIX_STRING);
    PMIx_Data_array_free(d);
}

static void test_info_list(void)
{
    void *list = PMIx_Info_list_start();
    int one = 1, two = 2;
    CHECK(PMIx_Info_list_add(list, "a", &one, PMIX_INT) == PMIX_SUCCESS);
    CHECK(PMIx_Info_list_add_unique(list, "a", &two, PMIX_INT, false) == PMIX_SUCCESS);
    CHECK(PMIx_Info_list_prepend(list, "first", "s", PMIX_STRING) == PMIX_SUCCESS);
    pmix_value_t val;
    PMIx_Value_construct(&val);
    PMIx_Value_load(&val, "v", PMIX_STRING);
    CHECK(PMIx_Info_list_add_value(list, "b", &val) == PMIX_SUCCESS);
    CHECK(PMIx_Info_list_add_value_unique(list, "b", &val, true) == PMIX_SUCCESS);
    PMIx_Value_destruct(&val);
    pmix_info_t extra;
    PMIx_Info_load(&extra, "a", &two, PMIX_INT);
    CHECK(PMIx_Info_list_xfer_unique(list, &extra, true) == PMIX_SUCCESS);
    PMIx_Info_destruct(&extra);

    const char *want[] = {"first", "a", "b"};
    void *cursor = NULL, *next = NULL;
    int n = 0;
    do {
        pmix_info_t *i = PMIx_Info_list_get_info(list, cursor, &next);
        CHECK(i != NULL && n < 3 && strcmp(i->key, want[n]) == 0);
        if (i != NULL && n == 1) {
            CHECK(i->value.type == PMIX_INT && i->value.data.integer == 2);
        }
        n++;
        cursor = next;
    } while (next != NULL && n < 5);
    CHECK(n == 3);
    PMIx_Info_list_release(list);
}

static void test_structs(void)
{
    pmix_coord_t *c = PMIx_Coord_create(3, 2);
    CHECK(c != NULL && c[1].dims == 3 && c[1].coord != NULL && c[1].coord[2] == 0);
    PMIx_Coord_destruct(&c[0]);
    CHECK(c[0].coord == NULL && c[0].dims == 0);
    PMIx_Coord_free(c, 2);

    pmix_geometry_t *g = PMIx_Geometry_create(1);
    g->uuid = strdup("uuid");
    g->coordinates = PMIx_Coord_create(2, 1);
    g->ncoords = 1;
    PMIx_Geometry_free(g, 1);

    pmix_device_distance_t dd;
    PMIx_Device_distance_construct(&dd);
    CHECK(dd.mindist == UINT16_MAX && dd.maxdist == UINT16_MAX && dd.uuid == NULL);
    pmix_device_distance_t *dds = PMIx_Device_distance_create(2);
    dds[1].osname = strdup("eth0");
    PMIx_Device_distance_free(dds, 2);

    pmix_endpoint_t *e = PMIx_Endpoint_create(1);
    e->endpt.bytes = malloc(4);
    e->endpt.size = 4;
    PMIx_Endpoint_free(e, 1);

    pmix_byte_object_t bo;
    PMIx_Byte_object_construct(&bo);
    PMIx_Byte_object_load(&bo, strdup("abc"), 4);
    CHECK(bo.size == 4 && strcmp(bo.bytes, "abc") == 0);
    PMIx_Byte_object_destruct(&bo);
    CHECK(bo.bytes == NULL && bo.size == 0);
    pmix_byte_object_t *bos = PMIx_Byte_object_create(2);
    PMIx_Byte_object_load(&bos[0], malloc(8), 8);
    PMIx_Byte_object_free(bos, 2);

    pmix_envar_t *ev = PMIx_Envar_create(1);
    PMIx_Envar_load(ev, "PATH", "/bin", ':');
    CHECK(strcmp(ev->envar, "PATH") == 0 && ev->separator == ':');
    PMIx_Envar_free(ev, 1);

    pmix_regattr_t *ra = PMIx_Regattr_create(2);
    PMIx_Regattr_load(&ra[0], "PMIX_JOB_SIZE", PMIX_JOB_SIZE, PMIX_UINT32, "the job size");
    PMIx_Regattr_xfer(&ra[1], &ra[0]);
    CHECK(strcmp(ra[1].name, "PMIX_JOB_SIZE") == 0 && strcmp(ra[1].string, PMIX_JOB_SIZE) == 0);
    CHECK(ra[1].description != NULL && strcmp(ra[1].description[0], "the job size") == 0);
    PMIx_Regattr_free(ra, 2);

    pmix_cpuset_t cs;
    PMIx_Cpuset_construct(&cs);
    CHECK(cs.source == NULL && cs.bitmap == NULL);
    pmix_cpuset_t *css = PMIx_Cpuset_create(1);
    css->source = strdup("hwloc");
    PMIx_Cpuset_free(css, 1);
    pmix_topology_t *topo = PMIx_Topology_create(1);
    topo->source = strdup("hwloc");
    PMIx_Topology_free(topo, 1);

    pmix_proc_info_t *pi = PMIx_Proc_info_create(1);
    pi->hostname = strdup("node");
    PMIx_Proc_info_free(pi, 1);

    pmix_node_stats_t *ns = PMIx_Node_stats_create(1);
    ns->node = strdup("node");
    PMIx_Node_stats_free(ns, 1);
}

static void test_spawn_query_pdata(void)
{
    pmix_app_t *apps = PMIx_App_create(2);
    apps[0].cmd = strdup("/bin/true");
    PMIx_Argv_append_nosize(&apps[0].argv, "true");
    PMIx_App_info_create(&apps[0], 2);
    CHECK(apps[0].ninfo == 2 && apps[0].info != NULL);
    PMIx_Info_load(&apps[0].info[0], PMIX_WDIR, "/tmp", PMIX_STRING);
    char *text = PMIx_App_string(&apps[0]);
    CHECK(text != NULL && strstr(text, "/bin/true") != NULL);
    free(text);
    PMIx_App_free(apps, 2);
    pmix_app_t *one = PMIx_App_create(1);
    one->cwd = strdup("/");
    PMIx_App_release(one);

    pmix_query_t q;
    PMIx_Query_construct(&q);
    CHECK(q.keys == NULL && q.qualifiers == NULL && q.nqual == 0);
    pmix_query_t *qs = PMIx_Query_create(1);
    PMIx_Argv_append_nosize(&qs->keys, PMIX_QUERY_NAMESPACES);
    PMIx_Query_qualifiers_create(qs, 1);
    PMIx_Info_load(&qs->qualifiers[0], PMIX_NSPACE, "job", PMIX_STRING);
    PMIx_Query_free(qs, 1);
    qs = PMIx_Query_create(1);
    PMIx_Query_qualifiers_create(qs, 2);
    PMIx_Query_release(qs);

    pmix_pdata_t pd;
    PMIx_Pdata_construct(&pd);
    CHECK(pd.value.type == PMIX_UNDEF && pd.key[0] == 0);
    PMIx_Value_load(&pd.value, "published", PMIX_STRING);
    PMIx_Pdata_destruct(&pd);
    CHECK(pd.value.type == PMIX_UNDEF);
    pmix_pdata_t *pds = PMIx_Pdata_create(2);
    PMIx_Value_load(&pds[1].value, "v", PMIX_STRING);
    PMIx_Pdata_free(pds, 2);
}

static void test_data_buffer(void)
{
    pmix_data_buffer_t *b = PMIx_Data_buffer_create();
    CHECK(b != NULL && b->base_ptr == NULL && b->bytes_used == 0);
    char *payload = malloc(5);
    memcpy(payload, "hello", 5);
    PMIx_Data_buffer_load(b, payload, 5);
    CHECK(b->bytes_used == 5);
    char *out = NULL;
    size_t sz = 0;
    PMIx_Data_buffer_unload(b, &out, &sz);
    CHECK(sz == 5 && out != NULL && memcmp(out, "hello", 5) == 0 && b->bytes_used == 0);
    PMIx_Data_buffer_load(b, out, sz); /* the buffer owns it again */
    PMIx_Data_buffer_release(b);

    pmix_data_buffer_t local;
    PMIx_Data_buffer_construct(&local);
    PMIx_Data_buffer_load(&local, strdup("x"), 2);
    PMIx_Data_buffer_destruct(&local);
    CHECK(local.base_ptr == NULL && local.bytes_used == 0);
}

int main(void)
{
    test_ids();
    test_argv();
    test_values_and_infos();
    test_info_list();
    test_structs();
    test_spawn_query_pdata();
    test_data_buffer();
    if (failures) {
        fprintf(stderr, "v5_helpers: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("v5_helpers: %d checks passed\n", checks);
    return 0;
}
