// The C API of client/include/foothold/client.h, name for name: one extern per function, the
// blittable structs as they are laid out in C. FootholdClient is the idiomatic layer over it.
//
// Types across the boundary: size_t is UIntPtr (64 bits on the 64-bit platforms we ship, 32 on a
// 32-bit one), const char* arguments are NUL-terminated UTF-8 byte arrays (pinned by the marshaller,
// so nothing is copied or allocated), returned strings are IntPtr read by Utf8.FromNative, and the
// enums the C functions return are int-sized enums.
using System;
using System.Runtime.InteropServices;

namespace Foothold
{
    internal static class Native
    {
        // Unity and .NET resolve this by platform naming: foothold-client.dll on Windows,
        // libfoothold-client.so on Linux (Mono too: it tries the lib prefix and .so suffix).
        internal const string Library = "foothold-client";

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr foothold_client_version();

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern void foothold_client_config_init(ref NativeConfig config);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Result foothold_client_create(ref NativeConfig config, out ClientHandle client,
                                                             byte[] error, UIntPtr errorSize);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern void foothold_client_destroy(IntPtr client);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr foothold_client_last_error(ClientHandle client);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int foothold_client_end_reason(ClientHandle client);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr foothold_client_end_name(int reason);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Result foothold_client_connect(ClientHandle client, byte[] token, UIntPtr tokenSize);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Result foothold_client_connect_token_file(ClientHandle client, byte[] path);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Result foothold_client_update(ClientHandle client, double nowSeconds);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Result foothold_client_set_input(ClientHandle client, double moveX, double moveZ, uint buttons);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Status foothold_client_get_status(ClientHandle client);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Result foothold_client_local_character(ClientHandle client, out Character character);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Result foothold_client_remote_characters(ClientHandle client, [Out] Character[] characters,
                                                                        UIntPtr capacity, out UIntPtr count);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Result foothold_client_get_stats(ClientHandle client, out Stats stats);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern UIntPtr foothold_client_world_triangle_count(ClientHandle client);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Result foothold_client_world_triangles(ClientHandle client, UIntPtr first, UIntPtr count,
                                                                      [Out] float[] vertices, [Out] uint[] tags);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern UIntPtr foothold_client_mover_triangle_count(ClientHandle client);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Result foothold_client_mover_triangles(ClientHandle client, UIntPtr first, UIntPtr count,
                                                                      [Out] float[] vertices, [Out] uint[] tags);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Result foothold_client_capsule(ClientHandle client, out double radius, out double height,
                                                              out double crouchHeight);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Result foothold_client_send_message(ClientHandle client, int channel, byte[] bytes, UIntPtr size);

        // The offset variants: the same functions, the buffer passed as a pointer into a pinned array.
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, EntryPoint = "foothold_client_send_message")]
        internal static extern Result foothold_client_send_message_at(ClientHandle client, int channel, IntPtr bytes, UIntPtr size);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Result foothold_client_receive_message(ClientHandle client, [Out] byte[] buffer, UIntPtr capacity,
                                                                      out UIntPtr size, out int channel);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Result foothold_client_view_tick(ClientHandle client, out double tick);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Result foothold_client_draw_local(ClientHandle client, out Character character,
                                                                 out Vector3d error);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Result foothold_client_draw_remotes(ClientHandle client, [Out] Character[] characters,
                                                                   UIntPtr capacity, out UIntPtr count);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Result foothold_client_poll_event(ClientHandle client, out ClientEvent clientEvent);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Result foothold_client_attribute(ClientHandle client, int scope, int index, out int value);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Result foothold_client_character_attribute(ClientHandle client, uint character, int index,
                                                                          out int value);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int foothold_client_attribute_index(ClientHandle client, int scope, byte[] name);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr foothold_client_attribute_name(ClientHandle client, int scope, int index);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern Result foothold_client_disconnect(ClientHandle client);
    }

    /// <summary>
    /// The owner of a native <c>foothold_client*</c>: destroys it exactly once, when the
    /// <see cref="FootholdClient"/> is disposed or, failing that, finalized.
    /// </summary>
    internal sealed class ClientHandle : SafeHandle
    {
        // The marshaller creates the handle for foothold_client_create's out parameter.
        private ClientHandle() : base(IntPtr.Zero, true) { }

        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }

        protected override bool ReleaseHandle()
        {
            Native.foothold_client_destroy(handle);
            return true;
        }
    }

    /// <summary>The C strings of the API in UTF-8 both ways.</summary>
    internal static class Utf8
    {
        // A NUL-terminated copy for a const char* argument (null stays null: the API's NULL).
        internal static byte[] ToNative(string text)
        {
            if (text == null) return null;
            var bytes = new byte[System.Text.Encoding.UTF8.GetByteCount(text) + 1];
            System.Text.Encoding.UTF8.GetBytes(text, 0, text.Length, bytes, 0);
            return bytes;
        }

        // Marshal.PtrToStringAnsi would read the Windows code page, not UTF-8; count the bytes instead.
        internal static string FromNative(IntPtr text)
        {
            if (text == IntPtr.Zero) return null;
            int length = 0;
            while (Marshal.ReadByte(text, length) != 0) ++length;
            if (length == 0) return string.Empty;
            var bytes = new byte[length];
            Marshal.Copy(text, bytes, 0, length);
            return System.Text.Encoding.UTF8.GetString(bytes);
        }
    }
}
