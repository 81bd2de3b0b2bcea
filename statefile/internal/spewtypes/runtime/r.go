// Package runtime mirrors k8s.io/apimachinery/pkg/runtime.
package runtime

// Object mirrors runtime.Object.
type Object interface{ DeepCopyObject() Object }

// RawExtension mirrors runtime.RawExtension.
type RawExtension struct {
	Raw    []byte
	Object Object
}
