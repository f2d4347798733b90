/* Links the installed C API and uses it without a server: the arena's triangles and a refused token. */
#include <foothold/client.h>

#include <stdio.h>

int main(void) {
  foothold_client_config config;
  foothold_client_config_init(&config);
  foothold_client* client = NULL;
  char error[256];
  if (foothold_client_create(&config, &client, error, sizeof error) != FOOTHOLD_CLIENT_OK) {
    fprintf(stderr, "consumer_c: %s\n", error);
    return 1;
  }
  const unsigned char garbage[4] = {1, 2, 3, 4};
  const foothold_client_result r = foothold_client_connect(client, garbage, sizeof garbage);
  printf("version=%s triangles=%zu movers=%zu bad_token=%d\n", foothold_client_version(),
         foothold_client_world_triangle_count(client), foothold_client_mover_triangle_count(client), (int)r);
  foothold_client_destroy(client);
  return r == FOOTHOLD_CLIENT_ERROR_TOKEN ? 0 : 1;
}
