/* MPI_Comm_connect / MPI_Comm_accept inside one job through the name
 * service: the even ranks (the "server" half) open a port and publish it
 * with MPI_Publish_name; after a barrier the odd ranks (the "client" half)
 * find it with MPI_Lookup_name and connect. Over the intercommunicator the
 * server root sends 42 to the client root; MPI_Intercomm_merge then sums
 * the world ranks; everyone disconnects. Each rank prints one line. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int server = rank % 2 == 0;
    MPI_Comm half, inter, merged;
    MPI_Comm_split(MPI_COMM_WORLD, server, rank, &half);
    int hrank;
    MPI_Comm_rank(half, &hrank);
    char port[MPI_MAX_PORT_NAME] = "";
    if (server && hrank == 0) {
        MPI_Open_port(MPI_INFO_NULL, port);
        MPI_Publish_name("cxa-service", MPI_INFO_NULL, port);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (server) {
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter);
    } else {
        if (hrank == 0)
            MPI_Lookup_name("cxa-service", MPI_INFO_NULL, port);
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter);
    }
    int remote;
    MPI_Comm_remote_size(inter, &remote);
    int token = 0;
    if (hrank == 0) {
        if (server) {
            token = 42;
            MPI_Send(&token, 1, MPI_INT, 0, 7, inter);
        } else {
            MPI_Recv(&token, 1, MPI_INT, 0, 7, inter, MPI_STATUS_IGNORE);
        }
    }
    MPI_Intercomm_merge(inter, !server, &merged);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, merged);
    printf("rank %d %s: remote %d sum %d%s\n", rank, server ? "accepted" : "connected",
           remote, sum, (!server && hrank == 0) ? (token == 42 ? " token 42" : " token WRONG") : "");
    fflush(stdout);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    MPI_Barrier(MPI_COMM_WORLD);
    if (server && hrank == 0) {
        MPI_Unpublish_name("cxa-service", MPI_INFO_NULL, port);
        MPI_Close_port(port);
    }
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
