// foothold-server: the server program (server/server_program.h) with the built-in games.
#include "games/builtin_games.h"
#include "server/server_program.h"

int main(int argc, char** argv) { return foothold::server::run_server(argc, argv, foothold::server::builtin_games()); }
