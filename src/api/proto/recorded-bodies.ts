/**
 * Request bodies recorded from kubectl 1.33 (`kubectl.1.33 -s <capture server> create …`), each with
 * what `--dry-run=client -o json` prints for the same command: kubectl is the oracle the protobuf
 * decoder is tested against (src/api/proto/decode.test.ts).
 */

/** One recorded request. */
export interface RecordedBody {
  command: string;
  /** The POST path. */
  path: string;
  /** The body, hex (`k8s\0` + runtime.Unknown). */
  hex: string;
  /** `kubectl … --dry-run=client -o json` of the same command. */
  dryRun: Record<string, unknown>;
}

export const RECORDED_BODIES: RecordedBody[] = [
  {
    command: "kubectl create deployment web --image=nginx --replicas=3 --port=80",
    path: "/apis/apps/v1/namespaces/default/deployments",
    hex: "6b3873000a150a07617070732f7631120a4465706c6f796d656e7412b8010a1f0a0377656212001a0022002a003200380042005a0a0a0361707012037765621286010803120c0a0a0a0361707012037765621a6c0a1c0a0012001a0022002a003200380042005a0a0a036170701203776562124c122e0a056e67696e7812056e67696e782a00320a0a001000185022002a0042006a007200800100880100900100a201001a00320042004a0052005800600068008201008a01009a0100c2010022020a00280038001a0c0800100018002000280038001a002200",
    dryRun: {"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web","creationTimestamp":null,"labels":{"app":"web"}},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"creationTimestamp":null,"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx","ports":[{"containerPort":80}],"resources":{}}]}},"strategy":{}},"status":{}},
  },
  {
    command: "kubectl create deployment zero --image=nginx:1.27 --replicas=0",
    path: "/apis/apps/v1/namespaces/default/deployments",
    hex: "6b3873000a150a07617070732f7631120a4465706c6f796d656e7412b5010a210a047a65726f12001a0022002a003200380042005a0b0a0361707012047a65726f1281010800120d0a0b0a0361707012047a65726f1a660a1d0a0012001a0022002a003200380042005a0b0a0361707012047a65726f124512270a056e67696e78120a6e67696e783a312e32372a0042006a007200800100880100900100a201001a00320042004a0052005800600068008201008a01009a0100c2010022020a00280038001a0c0800100018002000280038001a002200",
    dryRun: {"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"zero","creationTimestamp":null,"labels":{"app":"zero"}},"spec":{"replicas":0,"selector":{"matchLabels":{"app":"zero"}},"template":{"metadata":{"creationTimestamp":null,"labels":{"app":"zero"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.27","resources":{}}]}},"strategy":{}},"status":{}},
  },
  {
    command: "kubectl create namespace team-a",
    path: "/api/v1/namespaces",
    hex: "6b3873000a0f0a02763112094e616d657370616365121e0a160a067465616d2d6112001a0022002a0032003800420012001a020a001a002200",
    dryRun: {"kind":"Namespace","apiVersion":"v1","metadata":{"name":"team-a","creationTimestamp":null},"spec":{},"status":{}},
  },
  {
    command: "kubectl create configmap cfg --from-literal=a=1 --from-literal=b=",
    path: "/api/v1/namespaces/default/configmaps",
    hex: "6b3873000a0f0a0276311209436f6e6669674d617012240a130a0363666712001a0022002a0032003800420012060a016112013112050a016212001a002200",
    dryRun: {"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cfg","creationTimestamp":null},"data":{"a":"1","b":""}},
  },
  {
    command: "kubectl create secret generic sec --from-literal=password=s3cr3t --from-literal=empty=",
    path: "/api/v1/namespaces/default/secrets",
    hex: "6b3873000a0c0a027631120653656372657412360a130a0373656312001a0022002a0032003800420012090a05656d707479120012120a0870617373776f726412067333637233741a001a002200",
    dryRun: {"kind":"Secret","apiVersion":"v1","metadata":{"name":"sec","creationTimestamp":null},"data":{"empty":"","password":"czNjcjN0"}},
  },
  {
    command: "kubectl create service clusterip svc --tcp=80:8080 --tcp=443",
    path: "/api/v1/namespaces/default/services",
    hex: "6b3873000a0d0a0276311207536572766963651283010a1f0a0373766312001a0022002a003200380042005a0a0a036170701203737663125c0a1b0a0738302d38303830120354435018502207080010903f1a0028000a180a03343433120354435018bb032207080010bb031a002800120a0a0361707012037376631a002209436c757374657249503a00420052005a00600068001a020a001a002200",
    dryRun: {"kind":"Service","apiVersion":"v1","metadata":{"name":"svc","creationTimestamp":null,"labels":{"app":"svc"}},"spec":{"ports":[{"name":"80-8080","protocol":"TCP","port":80,"targetPort":8080},{"name":"443","protocol":"TCP","port":443,"targetPort":443}],"selector":{"app":"svc"},"type":"ClusterIP"},"status":{"loadBalancer":{}}},
  },
  {
    command: "kubectl create service nodeport np --tcp=80:http --node-port=30080",
    path: "/api/v1/namespaces/default/services",
    hex: "6b3873000a0d0a027631120753657276696365126a0a1d0a026e7012001a0022002a003200380042005a090a0361707012026e7012450a200a0738302d6874747012035443501850220a080110001a04687474702880eb0112090a0361707012026e701a0022084e6f6465506f72743a00420052005a00600068001a020a001a002200",
    dryRun: {"kind":"Service","apiVersion":"v1","metadata":{"name":"np","creationTimestamp":null,"labels":{"app":"np"}},"spec":{"ports":[{"name":"80-http","protocol":"TCP","port":80,"targetPort":"http","nodePort":30080}],"selector":{"app":"np"},"type":"NodePort"},"status":{"loadBalancer":{}}},
  },
  {
    command: "kubectl create service clusterip headless --clusterip=None",
    path: "/api/v1/namespaces/default/services",
    hex: "6b3873000a0d0a027631120753657276696365125f0a290a08686561646c65737312001a0022002a003200380042005a0f0a036170701208686561646c657373122e120f0a036170701208686561646c6573731a044e6f6e652209436c757374657249503a00420052005a00600068001a020a001a002200",
    dryRun: {"kind":"Service","apiVersion":"v1","metadata":{"name":"headless","creationTimestamp":null,"labels":{"app":"headless"}},"spec":{"selector":{"app":"headless"},"clusterIP":"None","type":"ClusterIP"},"status":{"loadBalancer":{}}},
  },
  {
    command: "kubectl create service externalname ext --external-name=example.com",
    path: "/api/v1/namespaces/default/services",
    hex: "6b3873000a0d0a027631120753657276696365125a0a1f0a0365787412001a0022002a003200380042005a0a0a0361707012036578741233120a0a0361707012036578741a00220c45787465726e616c4e616d653a004200520b6578616d706c652e636f6d5a00600068001a020a001a002200",
    dryRun: {"kind":"Service","apiVersion":"v1","metadata":{"name":"ext","creationTimestamp":null,"labels":{"app":"ext"}},"spec":{"selector":{"app":"ext"},"type":"ExternalName","externalName":"example.com"},"status":{"loadBalancer":{}}},
  },
  {
    command: "kubectl create serviceaccount sa1",
    path: "/api/v1/namespaces/default/serviceaccounts",
    hex: "6b3873000a140a027631120e536572766963654163636f756e7412150a130a0373613112001a0022002a003200380042001a002200",
    dryRun: {"kind":"ServiceAccount","apiVersion":"v1","metadata":{"name":"sa1","creationTimestamp":null}},
  },
  {
    command: "kubectl create job j1 --image=busybox -- echo hi",
    path: "/apis/batch/v1/namespaces/default/jobs",
    hex: "6b3873000a0f0a0862617463682f763112034a6f621284010a120a026a3112001a0022002a00320038004200126432620a100a0012001a0022002a00320038004200124e122b0a026a31120762757379626f781a046563686f1a0268692a0042006a007200800100880100900100a201001a054e65766572320042004a0052005800600068008201008a01009a0100c201001a082000280030003a001a002200",
    dryRun: {"kind":"Job","apiVersion":"batch/v1","metadata":{"name":"j1","creationTimestamp":null},"spec":{"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":[{"name":"j1","image":"busybox","command":["echo","hi"],"resources":{}}],"restartPolicy":"Never"}}},"status":{}},
  },
  {
    command: "kubectl create cronjob cj --image=busybox --schedule=\"*/5 * * * *\" -- echo hi",
    path: "/apis/batch/v1/namespaces/default/cronjobs",
    hex: "6b3873000a130a0862617463682f7631120743726f6e4a6f6212a8010a120a02636a12001a0022002a00320038004200128f010a0b2a2f35202a202a202a202a1a002a7e0a120a02636a12001a0022002a00320038004200126832660a100a0012001a0022002a003200380042001252122b0a02636a120762757379626f781a046563686f1a0268692a0042006a007200800100880100900100a201001a094f6e4661696c757265320042004a0052005800600068008201008a01009a0100c201001a001a002200",
    dryRun: {"kind":"CronJob","apiVersion":"batch/v1","metadata":{"name":"cj","creationTimestamp":null},"spec":{"schedule":"*/5 * * * *","jobTemplate":{"metadata":{"name":"cj","creationTimestamp":null},"spec":{"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":[{"name":"cj","image":"busybox","command":["echo","hi"],"resources":{}}],"restartPolicy":"OnFailure"}}}}},"status":{}},
  },
  {
    command: "kubectl create quota q --hard=cpu=1,memory=1Gi,pods=10",
    path: "/api/v1/namespaces/default/resourcequotas",
    hex: "6b3873000a130a027631120d5265736f7572636551756f746112420a110a017112001a0022002a00320038004200122b0a0a0a0363707512030a01310a0f0a066d656d6f727912050a033147690a0c0a04706f647312040a0231301a001a002200",
    dryRun: {"kind":"ResourceQuota","apiVersion":"v1","metadata":{"name":"q","creationTimestamp":null},"spec":{"hard":{"cpu":"1","memory":"1Gi","pods":"10"}},"status":{}},
  },
  {
    command: "kubectl create pdb pdb1 --selector=app=web --min-available=50%",
    path: "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
    hex: "6b3873000a200a09706f6c6963792f76311213506f6444697372757074696f6e427564676574123d0a140a047064623112001a0022002a0032003800420012190a09080110001a03353025120c0a0a0a0361707012037765621a0a080018002000280030001a002200",
    dryRun: {"kind":"PodDisruptionBudget","apiVersion":"policy/v1","metadata":{"name":"pdb1","creationTimestamp":null},"spec":{"minAvailable":"50%","selector":{"matchLabels":{"app":"web"}}},"status":{"disruptionsAllowed":0,"currentHealthy":0,"desiredHealthy":0,"expectedPods":0}},
  },
  {
    command: "kubectl create pdb pdb2 --selector=app=web --max-unavailable=1",
    path: "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
    hex: "6b3873000a200a09706f6c6963792f76311213506f6444697372757074696f6e427564676574123a0a140a047064623212001a0022002a003200380042001216120c0a0a0a0361707012037765621a06080010011a001a0a080018002000280030001a002200",
    dryRun: {"kind":"PodDisruptionBudget","apiVersion":"policy/v1","metadata":{"name":"pdb2","creationTimestamp":null},"spec":{"selector":{"matchLabels":{"app":"web"}},"maxUnavailable":1},"status":{"disruptionsAllowed":0,"currentHealthy":0,"desiredHealthy":0,"expectedPods":0}},
  },
  {
    command: "kubectl create priorityclass pc --value=1000",
    path: "/apis/scheduling.k8s.io/v1/priorityclasses",
    hex: "6b3873000a250a147363686564756c696e672e6b38732e696f2f7631120d5072696f72697479436c61737312310a120a02706312001a0022002a0032003800420010e807180022002a14507265656d70744c6f7765725072696f726974791a002200",
    dryRun: {"kind":"PriorityClass","apiVersion":"scheduling.k8s.io/v1","metadata":{"name":"pc","creationTimestamp":null},"value":1000,"preemptionPolicy":"PreemptLowerPriority"},
  },
];
