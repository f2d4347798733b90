// The few UnityEngine types the Unity package's sample (bindings/unity/Samples~) uses, with their
// real signatures and no behaviour: enough for mcs to compile the sample where Unity is not
// installed (tests/bindings/csharp_test.sh). For the tests only; never shipped.
using System;

namespace UnityEngine
{
    public class Object
    {
        public string name { get; set; }
    }

    public class Component : Object
    {
        public Transform transform { get { return null; } }
        public GameObject gameObject { get { return null; } }
    }

    public class Behaviour : Component
    {
        public bool enabled { get; set; }
    }

    public class MonoBehaviour : Behaviour { }

    public class Transform : Component
    {
        public Vector3 position { get; set; }
        public Vector3 localScale { get; set; }
    }

    public sealed class GameObject : Object
    {
        public Transform transform { get { return null; } }
        public void SetActive(bool value) { }
        public static GameObject CreatePrimitive(PrimitiveType type) { return null; }
    }

    public enum PrimitiveType { Sphere = 0, Capsule = 1, Cylinder = 2, Cube = 3, Plane = 4, Quad = 5 }

    public struct Vector3
    {
        public float x, y, z;
        public Vector3(float x, float y, float z)
        {
            this.x = x;
            this.y = y;
            this.z = z;
        }
    }

    public struct Mathf
    {
        public static int Min(int a, int b) { return a < b ? a : b; }
    }

    public enum KeyCode { None = 0, Space = 32, C = 99 }

    public static class Input
    {
        public static float GetAxisRaw(string axisName) { return 0; }
        public static bool GetKey(KeyCode key) { return false; }
    }

    public static class Time
    {
        public static double realtimeSinceStartupAsDouble { get { return 0; } }
    }

    public static class Debug
    {
        public static void Log(object message) { }
        public static void LogWarning(object message) { }
        public static void LogError(object message) { }
    }

    [AttributeUsage(AttributeTargets.Field)]
    public class TooltipAttribute : Attribute
    {
        public TooltipAttribute(string tooltip) { }
    }
}
