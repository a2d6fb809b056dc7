//! The statistics structs: `PMIx_Proc_stats_*`, `PMIx_Disk_stats_*`,
//! `PMIx_Net_stats_*` and `PMIx_Node_stats_*` (a node's statistics own
//! their disk and network arrays).

use super::lifecycle;
use crate::types::*;

lifecycle! {
    ProcStats: pmix_proc_stats_t {
        construct PMIx_Proc_stats_construct,
        destruct PMIx_Proc_stats_destruct,
        create PMIx_Proc_stats_create,
        free PMIx_Proc_stats_free,
    }
    DiskStats: pmix_disk_stats_t {
        construct PMIx_Disk_stats_construct,
        destruct PMIx_Disk_stats_destruct,
        create PMIx_Disk_stats_create,
        free PMIx_Disk_stats_free,
    }
    NetStats: pmix_net_stats_t {
        construct PMIx_Net_stats_construct,
        destruct PMIx_Net_stats_destruct,
        create PMIx_Net_stats_create,
        free PMIx_Net_stats_free,
    }
    NodeStats: pmix_node_stats_t {
        construct PMIx_Node_stats_construct,
        destruct PMIx_Node_stats_destruct,
        create PMIx_Node_stats_create,
        free PMIx_Node_stats_free,
    }
}
