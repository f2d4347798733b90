// tag-server: a game's own server in one line: the server program (server/server_program.h) with
// one game, tag (games/tag_game.h), which it runs unless --game says otherwise.
#include "games/tag_game.h"
#include "server/server_program.h"

int main(int argc, char** argv) {
  const foothold::server::GameEntry games[] = {
      {"tag", "one character is it; touching another passes it on; 60 s rounds", foothold::server::make_tag_game}};
  return foothold::server::run_server(argc, argv, games, "tag-server", "tag");
}
