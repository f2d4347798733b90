// Foothold in Unity: connects with a token file, reads the keyboard into the client's input every
// frame, and moves a capsule to the own character's drawn pose and one capsule per other player.
// Add it to an empty GameObject in a scene with a camera, set Token File to what
// `foothold-token issue --out` wrote, and play against a foothold-server.
//
// Foothold's axes are right-handed with Y up and -Z forward (OpenGL's, glTF's); Unity's are
// left-handed with +Z forward, so Z changes sign both ways. Nothing here allocates per frame: the
// characters come into arrays made once, and capsules are made only when more players are seen
// than ever before.
using Foothold;
using UnityEngine;

public class FootholdWalker : MonoBehaviour
{
    [Tooltip("The connect token file foothold-token issue --out wrote.")]
    public string tokenFile = "player.token";

    [Tooltip("The server's world: \"arena\" or the same .obj, .gltf or .glb file the server runs.")]
    public string world = "arena";

    const int kMaxRemotes = 64;

    FootholdClient client_;
    GameObject me_;
    readonly GameObject[] remotes_ = new GameObject[kMaxRemotes];
    readonly Character[] characters_ = new Character[kMaxRemotes];
    Vector3 capsuleScale_;
    bool reportedEnd_;

    void Start()
    {
        try
        {
            client_ = new FootholdClient(new ClientOptions { World = world });
            client_.ConnectTokenFile(tokenFile);
        }
        catch (FootholdException e)
        {
            Debug.LogError("Foothold: " + e.Message);
            enabled = false;
            return;
        }
        double radius, height, crouchHeight;
        client_.Capsule(out radius, out height, out crouchHeight);
        // Unity's capsule primitive is 2 m tall and 1 m across.
        capsuleScale_ = new Vector3((float)(2 * radius), (float)(height / 2), (float)(2 * radius));
        me_ = MakeCapsule("Foothold me");
    }

    void Update()
    {
        // The keyboard into the input: arrows or WASD (Unity's default axes), space jumps, C crouches.
        float right = Input.GetAxisRaw("Horizontal"), forward = Input.GetAxisRaw("Vertical");
        Buttons buttons = Buttons.None;
        if (Input.GetKey(KeyCode.Space)) buttons |= Buttons.Jump;
        if (Input.GetKey(KeyCode.C)) buttons |= Buttons.Crouch;
        client_.SetInput(right, -forward, buttons);
        if (client_.Update(Time.realtimeSinceStartupAsDouble) != Result.Ok) return;

        if (client_.Status != Status.Connected)
        {
            if (client_.Status > Status.Connected && !reportedEnd_)
            {
                reportedEnd_ = true;
                Debug.LogWarning("Foothold: " + FootholdClient.EndName(client_.EndReason) + ": " + client_.LastError);
            }
            return;
        }
        Character me;
        if (client_.DrawLocal(out me) == Result.Ok) me_.transform.position = ToUnity(me.Position);

        int count;
        if (client_.DrawRemotes(characters_, out count) != Result.Ok) count = 0;
        count = Mathf.Min(count, kMaxRemotes);
        for (int i = 0; i < kMaxRemotes; ++i)
        {
            if (i >= count)
            {
                if (remotes_[i] != null) remotes_[i].SetActive(false);
                continue;
            }
            if (remotes_[i] == null) remotes_[i] = MakeCapsule("Foothold remote");
            remotes_[i].SetActive(true);
            remotes_[i].transform.position = ToUnity(characters_[i].Position);
        }

        // The view's changes, taken every frame (they wait, the oldest dropped past 1024).
        ClientEvent e;
        while (client_.PollEvent(out e) == Result.Ok && e.KindOf != EventKind.None)
        {
            if (e.KindOf == EventKind.Appeared) Debug.Log("Foothold: player " + e.ClientId + " appeared");
            else if (e.KindOf == EventKind.LeftMatch) Debug.Log("Foothold: player " + e.ClientId + " left");
        }
    }

    void OnDestroy()
    {
        if (client_ != null) client_.Dispose();  // says goodbye to the server
        client_ = null;
    }

    GameObject MakeCapsule(string label)
    {
        var capsule = GameObject.CreatePrimitive(PrimitiveType.Capsule);
        capsule.name = label;
        capsule.transform.localScale = capsuleScale_;
        return capsule;
    }

    static Vector3 ToUnity(Vector3d p)
    {
        return new Vector3((float)p.X, (float)p.Y, (float)-p.Z);
    }
}
